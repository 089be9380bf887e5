import { messageCategories, type MessageCategory } from '#modules/conversations/public'

/** A message's `category` (docs/sending.md, The request), kept by its conversation too, which declares it. */
export { messageCategories, type MessageCategory }

/** Every status a message can have (docs/live-channels.md, `messages`, lists them). */
export const messageStatuses = [
  'queued',
  'dispatched',
  'sent',
  'delivered',
  'failed',
  'pending_quota_exceeded',
  'paused',
  'cancelled',
] as const
export type MessageStatus = (typeof messageStatuses)[number]

export type MessageDirection = 'out' | 'in'
