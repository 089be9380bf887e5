/** How statuses, directions and categories read on the Messages page. */
export const statusLabels: Record<string, string> = {
  queued: 'Queued',
  dispatched: 'On a phone',
  sent: 'Sent',
  delivered: 'Delivered',
  failed: 'Failed',
  pending_quota_exceeded: 'Waiting for quota',
  paused: 'Paused',
  cancelled: 'Cancelled',
}

export const statusTone: Record<string, 'default' | 'info' | 'success' | 'warning' | 'error'> = {
  queued: 'default',
  dispatched: 'info',
  sent: 'info',
  delivered: 'success',
  failed: 'error',
  pending_quota_exceeded: 'warning',
  paused: 'warning',
  cancelled: 'default',
}

export const directionLabels: Record<string, string> = { out: 'Outgoing', in: 'Incoming' }

export const categoryLabels: Record<string, string> = {
  transactional: 'Transactional',
  conversation: 'Conversation',
  info: 'Info',
  campaign: 'Campaign',
}
