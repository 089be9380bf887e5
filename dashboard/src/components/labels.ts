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
export type ConversationState = components['schemas']['Conversation']['state']
type RuleRun = components['schemas']['RuleRun']
export type RuleRunStatus = RuleRun['status']
export type RuleActionStatus = RuleRun['actions'][number]['status']
export type ActivityLevel = components['schemas']['ActivityEntry']['level']
export type Role = components['schemas']['User']['role']
export type BackupOutcome = components['schemas']['BackupAttempt']['outcome']
export type ImportEncoding = components['schemas']['ContactImport']['encoding']
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

/** An incoming SMS's status as the operator reads it, and the received messages' bar beside the outgoing stack. */
export const receivedLabel = 'Received'

/**
 * An incoming SMS is stored as `delivered` (the API's word: it reached the gateway); an
 * operator reads that as "Received". The direction decides, never the status alone.
 */
export function messageStatusLabel(message: { direction: string; status: string }): string {
  if (message.direction === 'in' && message.status === 'delivered') return receivedLabel
  return messageStatusLabels[message.status as MessageStatus] ?? message.status
}

export function messageStatusTone(message: { direction: string; status: string }): Tone {
  return messageStatusTones[message.status as MessageStatus] ?? 'default'
}

/**
 * The Messages status filter's choices: every status the list shows, in its words. Received is
 * not a status of the API but the word every row shows for an incoming `delivered`, so it is a
 * choice of its own, and Delivered keeps to the outgoing messages that read Delivered
 * (`listQueryOf` in pages/messages/use_message_filters.ts turns both into the API's filters).
 */
export type MessageStatusChoice = MessageStatus | 'received'
export const messageStatusChoices: ReadonlyArray<{ value: MessageStatusChoice; label: string }> = (Object.keys(messageStatusLabels) as MessageStatus[]).flatMap((status) => {
  const choice = { value: status, label: messageStatusLabels[status] }
  return status === 'delivered' ? [choice, { value: 'received' as const, label: receivedLabel }] : [choice]
})

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

/** The line under a conversation's number: the API carries no message text in a conversation, so its state. */
export const conversationStateLabels: Record<ConversationState, string> = { open: 'Last message sent', awaiting_reply: 'Awaiting reply' }
/** A conversation's marks, the tags of its row and of its thread. */
export const conversationMarkLabels = { pinned: 'Pinned', archived: 'Archived' } as const

/** A rule's run in the log: still running, or done; and each of its actions. */
export const ruleRunStatusLabels: Record<RuleRunStatus, string> = { pending: 'Running', done: 'Done' }
export const ruleActionStatusLabels: Record<RuleActionStatus, string> = { pending: 'Waiting', done: 'Done', skipped: 'Skipped', failed: 'Failed' }
export const ruleActionStatusTones: Record<RuleActionStatus, Tone> = { pending: 'default', done: 'success', skipped: 'warning', failed: 'error' }

export const activityLevelLabels: Record<ActivityLevel, string> = { info: 'Info', warning: 'Warning', error: 'Error' }

export const roleLabels: Record<Role, string> = { readonly: 'Read-only', operator: 'Operator', superadmin: 'Superadmin' }

/** A backup attempt's outcome, on the Backups page and the Overview's tile. */
export const backupOutcomeLabels: Record<BackupOutcome, string> = { success: 'Succeeded', failed: 'Failed' }

/** What a CSV import's column is turned into (the mapping step): a contact's field, a custom field, or nothing. */
export const importColumnUseLabels = {
  phone: 'Phone number',
  firstName: 'First name',
  lastName: 'Last name',
  company: 'Company',
  email: 'E-mail',
  tags: 'Tags',
  field: 'Custom field',
  ignore: 'Leave out',
} as const

/** The encodings an import offers, named as spreadsheets name them when saving. */
export const importEncodingLabels: Record<ImportEncoding, string> = {
  'utf-8': 'UTF-8 ("CSV UTF-8")',
  'windows-1252': 'Windows-1252 (Excel\'s plain "CSV", Western Europe)',
}

/** A select's options from one of the label maps above, in its order. */
export function choicesOf<Value extends string>(labels: Readonly<Record<Value, string>>): Array<{ value: Value; label: string }> {
  return (Object.keys(labels) as Value[]).map((value) => ({ value, label: labels[value] }))
}
