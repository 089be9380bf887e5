import { defineErrorKinds, type KindsOf } from '#core/http/api_error'

/** Refusals of campaigns (docs/campaigns.md, ## Campaigns). */
export const campaignErrors = defineErrorKinds({
  CAMPAIGN_NOT_EDITABLE: { status: 409, code: 'CAMPAIGN_NOT_EDITABLE', description: 'Only a draft or scheduled campaign can be edited' },
  CAMPAIGN_WRONG_STATE: { status: 409, code: 'CAMPAIGN_WRONG_STATE', description: 'The campaign is not in a state that allows this action' },
  CAMPAIGN_NOT_READY: {
    status: 422,
    code: 'CAMPAIGN_NOT_READY',
    description: 'The campaign cannot be launched: no text, no audience, or the phone it forces is not paired',
  },
  CAMPAIGN_NOTHING_TO_RETRY: { status: 409, code: 'CAMPAIGN_NOTHING_TO_RETRY', description: 'The completed campaign has no failed recipient to send to again' },
})

declare module '#core/http/api_error' {
  interface ApiErrorKinds extends KindsOf<typeof campaignErrors> {}
}
