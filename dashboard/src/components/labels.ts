import type { components } from '../api/schema'

/**
 * The words the dashboard shows for the API's statuses, directions and categories: one set, so
 * a status reads the same on Messages, Conversations, a campaign's recipients, the Overview and
 * Statistics charts, and in every filter. A page never shows the API's raw value.
 */

type Message = components['schemas']['Message']
export type MessageStatus = Message['status']
export type MessageDirection = Message['direction']
export type MessageCategory = NonNullable<Message['category']>
export type CampaignStatus = components['schemas']['Campaign']['status']
export type RecipientStatus = components['schemas']['CampaignRecipient']['status']
export type Tone = 'default' | 'info' | 'success' | 'warning' | 'error'

export const messageStatusLabels: Record<MessageStatus, string> = {
  queued: 'Queued',
  dispatched: 'On a phone',
  sent: 'Sent',
  delivered: 'Delivered',
  failed: 'Failed',
  pending_quota_exceeded: 'Waiting for quota',
  paused: 'Paused',
  cancelled: 'Cancelled',
}

export const messageStatusTones: Record<MessageStatus, Tone> = {
  queued: 'default',
  dispatched: 'info',
  sent: 'info',
  delivered: 'success',
  failed: 'error',
  pending_quota_exceeded: 'warning',
  paused: 'warning',
  cancelled: 'default',
}

/**
 * An incoming SMS is stored as `delivered` (the API's word: it reached the gateway); an
 * operator reads that as "Received". The direction decides, never the status alone.
 */
export function messageStatusLabel(message: { direction: string; status: string }): string {
  if (message.direction === 'in' && message.status === 'delivered') return 'Received'
  return messageStatusLabels[message.status as MessageStatus] ?? message.status
}

export function messageStatusTone(message: { direction: string; status: string }): Tone {
  return messageStatusTones[message.status as MessageStatus] ?? 'default'
}

export const directionLabels: Record<MessageDirection, string> = { out: 'Outgoing', in: 'Incoming' }

export const categoryLabels: Record<MessageCategory, string> = {
  transactional: 'Transactional',
  conversation: 'Conversation',
  info: 'Info',
  campaign: 'Campaign',
}
export const categories = Object.keys(categoryLabels) as MessageCategory[]

export function categoryLabel(category: string | null | undefined): string {
  return category ? (categoryLabels[category as MessageCategory] ?? category) : '—'
}

/**
 * Outgoing statuses as the volume charts stack them (Overview, Statistics): settled ones at the
 * bottom, the ones still moving on top, each with its colour and the label above.
 */
const chartOrder: ReadonlyArray<{ status: MessageStatus; colour: string }> = [
  { status: 'delivered', colour: '#18a058' },
  { status: 'sent', colour: '#2f6fde' },
  { status: 'dispatched', colour: '#5b8def' },
  { status: 'queued', colour: '#8a94a6' },
  { status: 'pending_quota_exceeded', colour: '#f0a020' },
  { status: 'paused', colour: '#b3b9c4' },
  { status: 'cancelled', colour: '#5c6370' },
  { status: 'failed', colour: '#d03050' },
]
export const outgoingStatuses = chartOrder.map((entry) => ({ ...entry, label: messageStatusLabels[entry.status] }))
/** The received messages' bar beside the outgoing stack. */
export const receivedLabel = 'Received'

/** A campaign recipient: waiting for its turn (no message yet), then its message's status. */
export const recipientStatusLabels: Record<RecipientStatus, string> = {
  pending: 'Waiting their turn',
  queued: messageStatusLabels.queued,
  dispatched: messageStatusLabels.dispatched,
  sent: messageStatusLabels.sent,
  delivered: messageStatusLabels.delivered,
  failed: messageStatusLabels.failed,
  pending_quota_exceeded: messageStatusLabels.pending_quota_exceeded,
  paused: messageStatusLabels.paused,
  cancelled: messageStatusLabels.cancelled,
}
export const recipientStatusTones: Record<RecipientStatus, Tone> = { ...messageStatusTones, pending: 'default' }

export const campaignStatusLabels: Record<CampaignStatus, string> = {
  draft: 'Draft',
  scheduled: 'Scheduled',
  running: 'Running',
  paused: 'Paused',
  completed: 'Completed',
  cancelled: 'Cancelled',
}
export const campaignStatusTones: Record<CampaignStatus, Tone> = {
  draft: 'default',
  scheduled: 'info',
  running: 'success',
  paused: 'warning',
  completed: 'success',
  cancelled: 'error',
}

export const phoneStatusLabels: Record<string, string> = { online: 'Online', offline: 'Offline' }
export const phoneStatusLabel = (status: string) => phoneStatusLabels[status] ?? status
