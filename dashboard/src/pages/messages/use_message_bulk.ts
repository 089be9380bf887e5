import { api, answer } from '../../api/client'
import type { operations } from '../../api/schema'
import { listQueryOf, type MessageFilters } from './use_message_filters'

export type BulkAction = 'delete' | 'retry'
type BulkBody = NonNullable<operations['deleteMessages']['requestBody']>['content']['application/json']
export type BulkOutcome = operations['deleteMessages']['responses'][200]['content']['application/json']

/** The ids, or everything the list's filters match (docs/sending.md, Many messages at once). */
export type BulkTarget = { ids: string[] } | { filters: MessageFilters }

function bodyOf(target: BulkTarget, dryRun: boolean): BulkBody {
  const chosen = 'ids' in target ? { ids: target.ids } : { filter: listQueryOf(target.filters) }
  return dryRun ? { ...chosen, dryRun } : chosen
}

export function bulkMessages(action: BulkAction, target: BulkTarget, dryRun = false): Promise<BulkOutcome> {
  const body = bodyOf(target, dryRun)
  return action === 'delete'
    ? answer(api.POST('/api/v1/messages/bulk-delete', { body }))
    : answer(api.POST('/api/v1/messages/bulk-retry', { body }))
}

const messages = (count: number) => `${count.toLocaleString('en')} message${count === 1 ? '' : 's'}`

/** What a bulk action did, in words. */
export function outcomeInWords(action: BulkAction, outcome: BulkOutcome): string {
  const { not_found: gone = 0, not_failed: notFailed = 0 } = outcome.skipped
  const parts = [action === 'delete' ? `Deleted ${messages(outcome.changed)}` : `Queued ${messages(outcome.changed)} again`]
  if (notFailed) parts.push(`${messages(notFailed)} not failed, left as ${notFailed === 1 ? 'it was' : 'they were'}`)
  if (gone) parts.push(`${messages(gone)} already gone`)
  return `${parts.join('; ')}.`
}

export { messages as messageCount }
