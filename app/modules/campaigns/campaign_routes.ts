import { defineRoutes } from '#core/contract/route_contract'
import type { RouteRegistry } from '#core/contract/route_registry'
import { pageOf } from '#core/contract/schemas'
import { campaignPermissions } from '#modules/campaigns/permissions'
import { campaignSchemas } from '#modules/campaigns/schemas'
import {
  createCampaignValidator,
  exportRecipientsValidator,
  listCampaignsValidator,
  listRecipientsValidator,
  updateCampaignValidator,
} from '#modules/campaigns/validators/campaign_validators'

const CampaignsController = () => import('#modules/campaigns/controllers/campaigns_controller')
const campaignId = { id: 'Campaign identifier' }

/** Campaigns: plan, launch, watch, pause, resume, cancel (docs/campaigns.md). */
export function campaignRoutes(registry: RouteRegistry) {
  registry.describeTag('Campaigns', 'Bulk sends to groups, contacts and numbers, paced and held by the send window')
  const { campaign, recipient, review } = campaignSchemas(registry)
  const read = campaignPermissions['campaigns.read']
  const change = campaignPermissions['campaigns.change']
  const action = (path: string, operationId: string, summary: string, handler: string, description: string) => ({
    method: 'POST' as const,
    path: `/api/v1/campaigns/:id/${path}`,
    operationId,
    summary,
    description,
    tag: 'Campaigns',
    access: change,
    params: campaignId,
    answer: { status: 200, description: 'The campaign', schema: campaign },
    errors: ['NOT_FOUND' as const, 'CAMPAIGN_WRONG_STATE' as const],
    handler: [CampaignsController, handler] as [typeof CampaignsController, string],
  })

  return defineRoutes([
    {
      method: 'GET',
      path: '/api/v1/campaigns',
      operationId: 'listCampaigns',
      summary: 'Campaigns, newest first',
      tag: 'Campaigns',
      access: read,
      query: listCampaignsValidator,
      answer: { status: 200, description: 'A page of campaigns', schema: pageOf(campaign) },
      handler: [CampaignsController, 'index'],
    },
    {
      method: 'POST',
      path: '/api/v1/campaigns',
      operationId: 'createCampaign',
      summary: 'Create a draft campaign',
      tag: 'Campaigns',
      access: change,
      body: createCampaignValidator,
      answer: { status: 201, description: 'The draft', schema: campaign },
      handler: [CampaignsController, 'store'],
    },
    {
      method: 'GET',
      path: '/api/v1/campaigns/:id',
      operationId: 'getCampaign',
      summary: 'One campaign with its counts, pace and estimated end',
      tag: 'Campaigns',
      access: read,
      params: campaignId,
      answer: { status: 200, description: 'The campaign', schema: campaign },
      errors: ['NOT_FOUND'],
      handler: [CampaignsController, 'show'],
    },
    {
      method: 'PATCH',
      path: '/api/v1/campaigns/:id',
      operationId: 'updateCampaign',
      summary: 'Change a draft or scheduled campaign',
      description: 'A scheduled campaign’s audience is resolved again (counts.total back to 0 meanwhile). Running, paused and ended ones: 409 CAMPAIGN_NOT_EDITABLE.',
      tag: 'Campaigns',
      access: change,
      params: campaignId,
      body: updateCampaignValidator,
      answer: { status: 200, description: 'The campaign', schema: campaign },
      errors: ['NOT_FOUND', 'CAMPAIGN_NOT_EDITABLE'],
      handler: [CampaignsController, 'update'],
    },
    {
      method: 'DELETE',
      path: '/api/v1/campaigns/:id',
      operationId: 'deleteCampaign',
      summary: 'Delete a campaign that is not running or paused (its messages stay)',
      tag: 'Campaigns',
      access: change,
      params: campaignId,
      answer: { status: 204, description: 'Deleted' },
      errors: ['NOT_FOUND', 'CAMPAIGN_WRONG_STATE'],
      handler: [CampaignsController, 'destroy'],
    },
    {
      method: 'GET',
      path: '/api/v1/campaigns/:id/review',
      operationId: 'reviewCampaign',
      summary: 'What a launch would send, read without writing',
      tag: 'Campaigns',
      access: read,
      params: campaignId,
      answer: { status: 200, description: 'Recipients, exclusions, segments, samples, timing and problems', schema: review },
      errors: ['NOT_FOUND'],
      handler: [CampaignsController, 'review'],
    },
    {
      ...action(
        'launch',
        'launchCampaign',
        'Launch a draft: scheduled (startAt in the future) or running',
        'launch',
        'Answers at once; the audience is resolved into recipients in the background (counts.total grows from 0). ' +
          'A templateId’s text is copied into body now. 422 CAMPAIGN_NOT_READY: no text, no audience, or the phone it forces (deviceId) is not paired.'
      ),
      errors: ['NOT_FOUND', 'CAMPAIGN_WRONG_STATE', 'CAMPAIGN_NOT_READY'],
    },
    action('pause', 'pauseCampaign', 'Pause: no new messages; those not yet with a phone are paused', 'pause', 'Messages already handed to a phone go on.'),
    action('resume', 'resumeCampaign', 'Resume a paused campaign', 'resume', 'Its paused messages go back to the queue (unless the send window is closed).'),
    action(
      'cancel',
      'cancelCampaign',
      'Cancel: pending recipients and messages not yet with a phone are cancelled (CAMPAIGN_CANCELLED)',
      'cancel',
      'Messages a phone has accepted go on and are counted; an order an SMSGate app phone has not fetched yet is taken back and cancelled too.'
    ),
    {
      ...action(
        'retry-failed',
        'retryFailedCampaignRecipients',
        'Send again to the recipients whose message failed (a new run)',
        'retryFailed',
        'Only a completed campaign (409 CAMPAIGN_WRONG_STATE otherwise); run grows by one and the campaign runs again over those recipients, ' +
          'and campaign.completed is emitted again when that run ends. Nothing failed: 409 CAMPAIGN_NOTHING_TO_RETRY, the campaign unchanged. ' +
          'The phone it forces no longer paired: 422 CAMPAIGN_NOT_READY.'
      ),
      errors: ['NOT_FOUND', 'CAMPAIGN_WRONG_STATE', 'CAMPAIGN_NOTHING_TO_RETRY', 'CAMPAIGN_NOT_READY'],
    },
    {
      method: 'GET',
      path: '/api/v1/campaigns/:id/recipients',
      operationId: 'listCampaignRecipients',
      summary: 'Recipients in the order they are sent',
      tag: 'Campaigns',
      access: read,
      params: campaignId,
      query: listRecipientsValidator,
      answer: { status: 200, description: 'A page of recipients', schema: pageOf(recipient) },
      errors: ['NOT_FOUND'],
      handler: [CampaignsController, 'recipients'],
    },
    {
      method: 'GET',
      path: '/api/v1/campaigns/:id/recipients/export',
      operationId: 'exportCampaignRecipients',
      summary: 'Every recipient as CSV (default) or JSON',
      tag: 'Campaigns',
      access: read,
      params: campaignId,
      query: exportRecipientsValidator,
      answer: {
        status: 200,
        description: 'The recipients: id, run, phone, contactId, status, errorCode, messageId, updatedAt',
        contentType: 'text/csv',
        schema: { type: 'string' },
        alternatives: { 'application/json': { type: 'array', items: recipient } },
      },
      errors: ['NOT_FOUND'],
      handler: [CampaignsController, 'exportRecipients'],
    },
  ])
}

/** The contracts as typed, for their handlers' input (`routeInputs<CampaignRoutes>()`). */
export type CampaignRoutes = ReturnType<typeof campaignRoutes>
