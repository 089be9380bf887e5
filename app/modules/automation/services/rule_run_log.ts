import { maskPhone } from '#core/logging/redaction'
import { toIso } from '#core/database/utc_date_time'
import { keysetPage, type PageRequest } from '#core/pagination/keyset_page'
import RuleRun from '#modules/automation/models/rule_run'

/** The rule-run log, newest first: what each run did, never the SMS text or the full number. */
export async function listRuns(filters: PageRequest & { ruleId?: string; kind?: 'rule' | 'keyword' }) {
  const query = RuleRun.query()
  if (filters.ruleId) query.where('rule_id', Number(filters.ruleId))
  if (filters.kind) query.where('kind', filters.kind)
  const page = await keysetPage(query, filters, 'created_at', (row) => toIso(row.createdAt))
  return { data: page.data.map(runResource), nextCursor: page.nextCursor }
}

export function runResource(run: RuleRun) {
  return {
    ...run.serialize(),
    maskedPhone: maskPhone(run.phone),
    actions: run.actions.map(({ type, outcome }) => ({ type, status: outcome?.status ?? 'pending', detail: outcome?.detail ?? null, messageId: outcome?.messageId ?? null })),
  }
}
