import { DateTime } from 'luxon'
import type { RuleCondition } from '#modules/automation/services/rule_shapes'
import { textMatches } from '#modules/automation/services/text_match'

/** An SMS as the conditions see it. */
export interface ArrivingSms {
  text: string
  deviceId: string | null
  simSlot: number | null
  at: Date
  /** The groups the sender's contact belongs to (none without a contact). */
  senderGroupIds: number[]
}

function minutes(time: string): number {
  const [hours, mins] = time.split(':').map(Number)
  return hours * 60 + mins
}

/**
 * Whether an instant falls in a weekly window of the platform time zone. A window whose end is
 * not after its start runs past midnight: Friday 22:00–06:00 covers Saturday's small hours.
 * start = end: the whole listed days.
 */
export function inWindow(at: Date, window: { days: number[]; start: string; end: string }, timezone: string): boolean {
  const local = DateTime.fromJSDate(at).setZone(timezone)
  const now = local.hour * 60 + local.minute
  const start = minutes(window.start)
  const end = minutes(window.end)
  if (start === end) return window.days.includes(local.weekday)
  if (start < end) return window.days.includes(local.weekday) && now >= start && now < end
  const yesterday = local.minus({ days: 1 }).weekday
  return (window.days.includes(local.weekday) && now >= start) || (window.days.includes(yesterday) && now < end)
}

export function conditionHolds(condition: RuleCondition, sms: ArrivingSms, timezone: string): boolean {
  switch (condition.type) {
    case 'text':
      return textMatches(sms.text, condition.match, condition.value)
    case 'sender_group':
      return sms.senderGroupIds.includes(Number(condition.groupId)) === condition.inGroup
    case 'received_on':
      return (
        sms.deviceId === condition.deviceId &&
        (condition.simSlot === undefined || condition.simSlot === null || sms.simSlot === condition.simSlot)
      )
    case 'time_window':
      return inWindow(sms.at, condition, timezone)
  }
}
