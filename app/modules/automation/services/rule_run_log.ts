import { maskPhone } from '#core/logging/redaction'
import { isoOrNull, toIso } from '#core/database/utc_date_time'
import type { PageRequest } from '#core/pagination/keyset_page'
import type RuleRun from '#modules/automation/models/rule_run'
import { RuleRunStore } from '#modules/automation/stores/rule_run_store'
import type { RuleRunPage, RuleRunResource } from '#modules/automation/schemas'

/** A store holds no state: a plain function makes its own (docs/modules.md, Data access). */
const runs = new RuleRunStore()

/** The rule-run log, newest first: what each run did, never the SMS text or the full number. */
export async function listRuns(filters: PageRequest & { ruleId?: string; kind?: 'rule' | 'keyword' }): Promise<RuleRunPage> {
  const page = await runs.page(filters)
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
