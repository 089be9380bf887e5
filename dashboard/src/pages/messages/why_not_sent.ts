/**
 * Why a message has not left yet (or will not), in the operator's words, from what the API
 * answers about it and about the phones. No Vue and no API types here: tests call it directly.
 */

/** The fields of a message (GET /messages/{id}) the reason depends on. */
export interface MessageFacts {
  direction: 'in' | 'out'
  status: string
  attempts: number
  errorCode?: string | null
  holdReason?: 'sim_cadence' | 'sim_rate' | null
  heldUntil?: string | null
  scheduledAt?: string | null
  deviceId?: string | null
  simSlot?: number | null
  /** Handed to the phone (deviceId) at this time, waiting for it to accept the order. */
  orderedAt?: string | null
}

/** A paired phone as GET /devices answers it. */
export interface PhoneFacts {
  id: string
  name: string
  enabled: boolean
  status: 'online' | 'offline'
}

export interface Context {
  phones: PhoneFacts[]
  now: Date
  /** The next midnight of the platform time zone, when known (quotas start again then). */
  quotaResetAt?: Date | null
  /** A date-time as the operator reads it. */
  time: (iso: string) => string
}

export interface Reason {
  text: string
  /** waiting: it leaves on its own; blocked: someone must act; final: it will not leave. */
  kind: 'waiting' | 'blocked' | 'final'
}

const isLater = (iso: string | null | undefined, now: Date): iso is string => !!iso && new Date(iso).getTime() > now.getTime()

export function whyNotSentYet(message: MessageFacts, context: Context): Reason | null {
  if (message.direction === 'in' || message.status === 'sent' || message.status === 'delivered') return null
  const { phones, time } = context
  const phone = message.deviceId ? phones.find((candidate) => candidate.id === message.deviceId) : undefined
  const phoneName = phone ? `“${phone.name}”` : `#${message.deviceId}`
  const slot = message.simSlot === null || message.simSlot === undefined ? '' : ` (SIM ${message.simSlot + 1})`

  switch (message.status) {
    case 'dispatched':
      return { kind: 'waiting', text: `Handed to phone ${phoneName}${slot}; waiting for it to confirm the SMS left.` }
    case 'paused':
      return { kind: 'waiting', text: 'Paused with its campaign; it leaves when the campaign resumes.' }
    case 'cancelled':
      if (message.errorCode === 'CONTACT_BLACKLISTED') return { kind: 'final', text: 'Cancelled: the recipient opted out. It will not be sent.' }
      if (message.errorCode === 'CAMPAIGN_CANCELLED') return { kind: 'final', text: 'Cancelled with its campaign. It will not be sent.' }
      return { kind: 'final', text: `Cancelled (${message.errorCode ?? 'no reason given'}). It will not be sent.` }
    case 'pending_quota_exceeded': {
      const when = context.quotaResetAt ? ` (${time(context.quotaResetAt.toISOString())})` : ''
      return { kind: 'waiting', text: `SIM quota reached: every usable SIM sent its daily quota. It resumes at midnight${when}, or when a quota is raised.` }
    }
    case 'failed':
      return failed(message, phoneName, slot)
    case 'queued':
      return queued(message, phone, phoneName, slot, context)
    default:
      return { kind: 'waiting', text: `Status ${message.status}.` }
  }
}

function failed(message: MessageFacts, phoneName: string, slot: string): Reason {
  switch (message.errorCode) {
    case 'DEVICE_NOT_PAIRED':
      return { kind: 'final', text: `The phone it was forced to (${phoneName}) is not paired with this gateway (unpaired, or never paired), so it could not be sent.` }
    case 'SIM_NOT_FOUND':
      return { kind: 'final', text: `The SIM it was forced to${slot} is not on phone ${phoneName}, so it could not be sent.` }
    case 'OUTCOME_UNKNOWN':
      return {
        kind: 'final',
        text: `Phone ${phoneName} could not tell whether the SMS left (it stopped mid-send or was unpaired): it is not sent again on its own, to avoid a duplicate.`,
      }
    default: {
      const attempts = `${message.attempts} attempt${message.attempts === 1 ? '' : 's'}`
      return { kind: 'final', text: `Given up after ${attempts}: the phone reported ${message.errorCode ?? 'a failure'}.` }
    }
  }
}

function queued(message: MessageFacts, phone: PhoneFacts | undefined, phoneName: string, slot: string, context: Context): Reason {
  const { now, time, phones } = context
  if (isLater(message.scheduledAt, now)) return { kind: 'waiting', text: `Scheduled for ${time(message.scheduledAt)}.` }
  if (message.holdReason && isLater(message.heldUntil, now)) {
    const limit = message.holdReason === 'sim_cadence' ? 'minimum interval between two SMS' : 'per-minute limit'
    return { kind: 'waiting', text: `Held by the SIM's ${limit} (cadence/rate) until ${time(message.heldUntil)}; no attempt is spent.` }
  }
  if (isLater(message.heldUntil, now)) {
    const failure = message.errorCode ? ` (${message.errorCode})` : ''
    return { kind: 'waiting', text: `Attempt ${message.attempts} failed${failure}; waiting for retry ${message.attempts} at ${time(message.heldUntil)}.` }
  }
  if (message.deviceId) {
    if (!phone) return { kind: 'blocked', text: `The phone it was forced to (${phoneName}) is not paired: it will fail.` }
    if (!phone.enabled) return { kind: 'blocked', text: `Phone ${phoneName} is disabled; the message waits for it.` }
    if (phone.status === 'offline') return { kind: 'blocked', text: `Phone ${phoneName} is offline; the message waits for it.` }
    if (message.orderedAt) return { kind: 'waiting', text: `Handed to phone ${phoneName}${slot} at ${time(message.orderedAt)}: waiting for it to accept.` }
    return { kind: 'waiting', text: `Forced to phone ${phoneName}${slot}: the next dispatch pass hands it over.` }
  }
  if (!phones.length) return { kind: 'blocked', text: 'No phone is paired yet: pair one on the Phones page to send.' }
  if (!phones.some((candidate) => candidate.enabled && candidate.status === 'online')) {
    return { kind: 'blocked', text: 'No phone is online: it leaves as soon as one connects.' }
  }
  return { kind: 'waiting', text: 'Due now: the next dispatch pass hands it to a phone.' }
}
