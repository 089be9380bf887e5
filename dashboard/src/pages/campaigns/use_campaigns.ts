import { api, answer } from '../../api/client'
import { useLiveChannel, type LivePayload } from '../../live/live'
import type { components, paths } from '../../api/schema'

export type Campaign = components['schemas']['Campaign']
export type CampaignStatus = Campaign['status']
export type CampaignRecipient = components['schemas']['CampaignRecipient']
export type CampaignReview = components['schemas']['CampaignReview']
export type NewCampaign = paths['/api/v1/campaigns']['post']['requestBody']['content']['application/json']
export type CampaignFields = paths['/api/v1/campaigns/{id}']['patch']['requestBody']['content']['application/json']
export type Group = components['schemas']['Group']
export type Template = components['schemas']['Template']

/** Recipients that will not change any more: sent, delivered, failed or withdrawn. */
export function finalCount(counts: Campaign['counts']): number {
  return counts.sent + counts.delivered + counts.failed + counts.cancelled
}

export async function listCampaigns(status: CampaignStatus | null, cursor?: string) {
  return answer(api.GET('/api/v1/campaigns', { params: { query: { ...(status ? { status } : {}), ...(cursor ? { cursor } : {}) } } }))
}

export async function getCampaign(id: string) {
  return answer(api.GET('/api/v1/campaigns/{id}', { params: { path: { id } } }))
}

export async function createCampaign(fields: NewCampaign) {
  return answer(api.POST('/api/v1/campaigns', { body: fields }))
}

export async function updateCampaign(id: string, fields: CampaignFields) {
  return answer(api.PATCH('/api/v1/campaigns/{id}', { params: { path: { id } }, body: fields }))
}

export async function deleteCampaign(id: string) {
  await answer(api.DELETE('/api/v1/campaigns/{id}', { params: { path: { id } } }))
}

export async function reviewCampaign(id: string) {
  return answer(api.GET('/api/v1/campaigns/{id}/review', { params: { path: { id } } }))
}

type Action = 'launch' | 'pause' | 'resume' | 'cancel' | 'retry-failed'
export async function actOn(id: string, action: Action) {
  const paths = {
    launch: '/api/v1/campaigns/{id}/launch',
    pause: '/api/v1/campaigns/{id}/pause',
    resume: '/api/v1/campaigns/{id}/resume',
    cancel: '/api/v1/campaigns/{id}/cancel',
    'retry-failed': '/api/v1/campaigns/{id}/retry-failed',
  } as const
  return answer(api.POST(paths[action], { params: { path: { id } } }))
}

export async function listRecipients(id: string, status: CampaignRecipient['status'] | null, cursor?: string) {
  return answer(
    api.GET('/api/v1/campaigns/{id}/recipients', { params: { path: { id }, query: { ...(status ? { status } : {}), ...(cursor ? { cursor } : {}) } } })
  )
}

export function exportUrl(id: string, format: 'csv' | 'json') {
  return `/api/v1/campaigns/${encodeURIComponent(id)}/recipients/export?format=${format}`
}

export async function listGroups(q?: string) {
  return answer(api.GET('/api/v1/groups', { params: { query: { limit: 200, ...(q ? { q } : {}) } } }))
}

export async function listTemplates() {
  return answer(api.GET('/api/v1/templates', { params: { query: { limit: 200 } } }))
}

export async function listFinishedImports() {
  const page = await answer(api.GET('/api/v1/contacts/imports', { params: { query: { limit: 50 } } }))
  return page.data.filter((entry) => entry.status === 'completed')
}

/** What the `campaigns` live channel says: a campaign's status and counts changed. */
export type CampaignChanged = LivePayload<'campaigns'>

export function useCampaignChanges(handler: (change: CampaignChanged['campaign']) => void, onSubscribed?: () => void) {
  useLiveChannel(
    'campaigns',
    (message) => {
      if (message?.type === 'campaign.changed') handler(message.campaign)
    },
    onSubscribed
  )
}
