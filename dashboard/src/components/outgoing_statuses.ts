import type { components } from '../api/schema'

export type OutStatus = keyof components['schemas']['MessageVolumeCounts']['out']

/**
 * Outgoing statuses as the volume charts stack them (Overview, Statistics): settled ones at the
 * bottom, the ones still moving on top, each with its one label and colour.
 */
export const outgoingStatuses: ReadonlyArray<{ status: OutStatus; label: string; colour: string }> = [
  { status: 'delivered', label: 'Delivered', colour: '#18a058' },
  { status: 'sent', label: 'Sent, no receipt', colour: '#2f6fde' },
  { status: 'dispatched', label: 'On a phone', colour: '#5b8def' },
  { status: 'queued', label: 'Queued', colour: '#8a94a6' },
  { status: 'pending_quota_exceeded', label: 'Quota reached', colour: '#f0a020' },
  { status: 'paused', label: 'Paused', colour: '#b3b9c4' },
  { status: 'cancelled', label: 'Cancelled', colour: '#5c6370' },
  { status: 'failed', label: 'Failed', colour: '#d03050' },
]
