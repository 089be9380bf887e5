import { maskPhone } from '#core/logging/redaction'
import { isoOrNull, toIso } from '#core/database/utc_date_time'
import { keysetPage, type PageRequest } from '#core/pagination/keyset_page'
import RuleRun from '#modules/automation/models/rule_run'
import type { RuleRunPage, RuleRunResource } from '#modules/automation/schemas'

/** The rule-run log, newest first: what each run did, never the SMS text or the full number. */
export async function listRuns(filters: PageRequest & { ruleId?: string; kind?: 'rule' | 'keyword' }): Promise<RuleRunPage> {
  const query = RuleRun.query()
  if (filters.ruleId) query.where('rule_id', Number(filters.ruleId))
  if (filters.kind) query.where('kind', filters.kind)
  const page = await keysetPage(query, filters, 'created_at', (row) => toIso(row.createdAt))
  return { data: page.data.map(runResource), nextCursor: page.nextCursor }
}

/** A run as answered; `maskedPhone` comes last, where the serialised model left it. */
export function runResource(run: RuleRun): RuleRunResource {
  return {
    id: String(run.id),
    ruleId: run.ruleId === null ? null : String(run.ruleId),
    ruleName: run.ruleName,
    kind: run.kind,
    messageId: String(run.messageId),
    conversationId: String(run.conversationId),
    deviceId: run.deviceId,
    simSlot: run.simSlot,
    status: run.status,
    actions: run.actions.map(({ type, outcome }) => ({ type, status: outcome?.status ?? 'pending', detail: outcome?.detail ?? null, messageId: outcome?.messageId ?? null })),
    createdAt: toIso(run.createdAt),
    finishedAt: isoOrNull(run.finishedAt),
    maskedPhone: maskPhone(run.phone),
  }
}
