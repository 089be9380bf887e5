import type { TextMatch } from '#modules/automation/services/text_match'

/** What a rule may ask of an SMS (all must hold). */
export type RuleCondition =
  | { type: 'text'; match: TextMatch; value: string }
  | { type: 'sender_group'; groupId: string; inGroup: boolean }
  | { type: 'received_on'; deviceId: string; simSlot?: number | null }
  | { type: 'time_window'; days: number[]; start: string; end: string }

/** What a rule does, in order. */
export type RuleAction =
  | { type: 'reply'; text?: string; templateId?: string; deviceId?: string | null; simSlot?: number | null }
  | { type: 'add_to_group'; groupId: string }
  | { type: 'remove_from_group'; groupId: string }
  | { type: 'add_tags'; tags: string[] }
  | { type: 'remove_tags'; tags: string[] }
  | { type: 'assign'; accountId: string | null }
  | { type: 'opt_out' }
  | { type: 'opt_in' }
  | { type: 'call_url'; url: string }

/** A built-in keyword's confirmation goes to the number that has just opted out. */
export type KeywordReply = { type: 'reply'; text: string; evenIfOptedOut: true }

/** How an action of a run ended. */
export interface ActionOutcome {
  status: 'done' | 'skipped' | 'failed'
  /** Plain words, never the SMS text or a full number. */
  detail: string
  messageId?: string
}

/** An action as a run planned it, with its outcome once run. */
export type PlannedAction = (RuleAction | KeywordReply) & { outcome?: ActionOutcome }
