import { inject } from '@adonisjs/core'
import type { Caller } from '#core/http/access'
import { ActivityLog } from '#core/activity/activity_log'
import { ApiError } from '#core/http/api_error'
import { chunksOf } from '#core/database/statement_chunks'
import { ChosenMessages, type ChosenMessage, type MessageListFilters } from '#modules/messages/public'
import { MAX_BULK_MATCHES } from '#modules/message_bulk/validators/bulk_validators'

export type BulkAction = 'delete' | 'retry'

export interface BulkRequest {
  ids?: string[]
  filter?: MessageListFilters
  dryRun?: boolean
}

/** What a bulk action did (or, in a dry run, would do); `skipped` counts by reason. */
export interface BulkOutcome {
  matched: number
  changed: number
  skipped: Partial<Record<'not_found' | 'not_failed', number>>
}

/**
 * A statement per chunk: other writers (sends, the phones' reports) take their turn on the one
 * writer between them, so a large action never stops the gateway for its whole length.
 */
const CHUNK = 500

/**
 * Many messages deleted or retried at once, chosen by ids or by the list's filters: each chunk
 * goes through the single operations' own code (the messages module's ChosenMessages), so a
 * bulk delete withdraws from phones and announces exactly as one delete does. One request,
 * not a job: at most MAX_BULK_MATCHES messages, so the answer can say what was done.
 */
@inject()
export class MessageBulk {
  constructor(
    private messages: ChosenMessages,
    private activity: ActivityLog
  ) {}

  /** `caller`: who asked, named by the Activity entry. */
  async run(action: BulkAction, request: BulkRequest, caller: Caller | null): Promise<BulkOutcome> {
    const { selected, notFound } = await this.#select(request)
    const skipped: BulkOutcome['skipped'] = {}
    let changed = 0
    if (request.dryRun) {
      changed = action === 'delete' ? selected.length : selected.filter((message) => message.status === 'failed' && message.direction === 'out').length
    } else {
      for (const chunk of chunksOf(selected, CHUNK)) {
        changed += action === 'delete' ? (await this.messages.delete(chunk)).size : (await this.messages.retry(chunk)).length
      }
    }
    const matched = selected.length + notFound
    // A message deleted meanwhile is not found; one that was not failed (or stopped being) is not_failed.
    const left = selected.length - changed
    if (action === 'delete' && notFound + left) skipped.not_found = notFound + left
    if (action === 'retry') {
      if (notFound) skipped.not_found = notFound
      if (left) skipped.not_failed = left
    }
    const outcome = { matched, changed, skipped }
    if (!request.dryRun) await this.#record(action, request.ids ? 'ids' : 'filter', outcome, caller)
    return outcome
  }

  /** The messages named or matched; with ids, how many named no message. */
  async #select(request: BulkRequest): Promise<{ selected: ChosenMessage[]; notFound: number }> {
    if ((request.ids === undefined) === (request.filter === undefined)) {
      throw new ApiError('VALIDATION_ERROR', 'Give either ids or filter', [{ field: 'ids', rule: 'requiredWithout', message: 'Give either ids or filter' }])
    }
    if (request.ids) {
      const ids = [...new Set(request.ids.map(Number))]
      const selected = await this.messages.named(ids)
      return { selected, notFound: ids.length - selected.length }
    }
    const selected = await this.messages.matching(request.filter!, MAX_BULK_MATCHES + 1)
    if (selected.length > MAX_BULK_MATCHES) {
      throw new ApiError('TOO_MANY_MESSAGES', `The filter matches more than ${MAX_BULK_MATCHES} messages; narrow it (a date range, a status, a phone)`, {
        limit: MAX_BULK_MATCHES,
      })
    }
    return { selected, notFound: 0 }
  }

  /** One entry per action, counts only: the filter may hold a number or words of a text. */
  async #record(action: BulkAction, by: 'ids' | 'filter', outcome: BulkOutcome, caller: Caller | null) {
    const done = action === 'delete' ? 'Deleted' : 'Retried'
    const skipped = Object.entries(outcome.skipped).map(([reason, count]) => `${count} ${reason.replace('_', ' ')}`)
    const message = `${done} ${outcome.changed} of ${outcome.matched} messages chosen by ${by === 'ids' ? 'selection' : 'filter'}${skipped.length ? ` (${skipped.join(', ')})` : ''}`
    const details = { by, matched: outcome.matched, changed: outcome.changed, skipped: outcome.skipped }
    const activity = this.activity.actingFor(caller)
    if (action === 'delete') await activity.info('messages', 'messages.deleted', message, details)
    else await activity.info('messages', 'messages.retried', message, details)
  }
}
