/** The fields of a message (GET /messages/{id}) its timeline is built from. */
export interface TimelineFacts {
  direction: 'in' | 'out'
  status: string
  attempts: number
  errorCode?: string | null
  holdReason?: string | null
  createdAt: string
  scheduledAt?: string | null
  heldUntil?: string | null
  orderedAt?: string | null
  sentAt?: string | null
  deliveredAt?: string | null
  failedAt?: string | null
}

export interface TimelineStep {
  at: string
  title: string
  /** Still to come (a schedule, a hold, a retry): shown apart from what happened. */
  upcoming: boolean
  tone: 'default' | 'success' | 'error' | 'info'
}

/**
 * What happened to a message, oldest first, from the timestamps its resource carries (the API
 * keeps no history of each attempt: the attempts count and the last error stand for them).
 */
export function messageTimeline(message: TimelineFacts, now: Date): TimelineStep[] {
  const steps: TimelineStep[] = []
  const add = (at: string | null | undefined, title: string, tone: TimelineStep['tone'] = 'default') => {
    if (at) steps.push({ at, title, upcoming: new Date(at).getTime() > now.getTime(), tone })
  }
  if (message.direction === 'in') {
    add(message.createdAt, 'Received', 'success')
    return steps
  }
  add(message.createdAt, 'Queued')
  add(message.scheduledAt, 'Scheduled to leave', 'info')
  if (message.status === 'queued' && message.heldUntil) {
    add(message.heldUntil, message.holdReason ? 'Hold ends' : `Retry ${message.attempts} (after ${message.errorCode ?? 'a failed attempt'})`, 'info')
  }
  add(message.orderedAt, 'Handed to a phone')
  add(message.sentAt, message.attempts > 1 ? `Sent (attempt ${message.attempts})` : 'Sent', 'success')
  add(message.deliveredAt, 'Delivered', 'success')
  add(message.failedAt, `Failed${message.errorCode ? ` (${message.errorCode})` : ''} after ${message.attempts} attempt${message.attempts === 1 ? '' : 's'}`, 'error')
  return steps.sort((a, b) => new Date(a.at).getTime() - new Date(b.at).getTime())
}
