import type { RouteRegistry } from '#core/contract/route_registry'
import { isoDateTimeSchema } from '#core/contract/schemas'
import { campaignStatuses } from '#modules/campaigns/models/campaign'
import { recipientStatuses } from '#modules/campaigns/validators/campaign_validators'
import { reviewProblemCodes } from '#modules/campaigns/services/campaign_review'

const nullableDate = { type: ['string', 'null'], format: 'date-time' }
const ids = { type: 'array', items: { type: 'string' } }
const count = { type: 'integer' }

/** Campaign resources as published in the OpenAPI document (tag Campaigns; docs/campaigns.md). */
export function campaignSchemas(registry: RouteRegistry) {
  const counts = {
    type: 'object',
    required: ['total', 'excluded', 'pending', 'queued', 'dispatched', 'sent', 'delivered', 'failed', 'paused', 'cancelled'],
    properties: {
      total: { ...count, description: 'Recipients after exclusions (every run counted once per number)' },
      excluded: {
        type: 'object',
        required: ['optedOut', 'duplicates', 'invalid'],
        properties: { optedOut: count, duplicates: count, invalid: count },
      },
      pending: { ...count, description: 'Not yet a message' },
      queued: { ...count, description: 'A message waiting for a phone (or for a SIM quota)' },
      dispatched: count,
      sent: count,
      delivered: count,
      failed: count,
      paused: count,
      cancelled: count,
    },
  }
  const campaign = registry.addSchema('Campaign', {
    type: 'object',
    required: ['id', 'name', 'status', 'body', 'templateId', 'audience', 'deviceId', 'simSlot', 'startAt', 'throttlePerMinute', 'run', 'counts',
      'ratePerMinute', 'estimatedEndAt', 'resumesAt', 'createdAt', 'updatedAt', 'launchedAt', 'completedAt', 'cancelledAt'],
    properties: {
      id: { type: 'string' },
      name: { type: 'string' },
      status: { enum: [...campaignStatuses] },
      body: { type: ['string', 'null'], description: 'The text with {{variables}}; a template named by templateId is copied here at launch' },
      templateId: { type: ['string', 'null'] },
      audience: {
        type: 'object',
        required: ['groupIds', 'contactIds', 'numbers', 'importIds'],
        properties: { groupIds: ids, contactIds: ids, numbers: ids, importIds: ids },
      },
      deviceId: { type: ['string', 'null'], description: 'Force this phone (as a send request)' },
      simSlot: { enum: [0, 1, null] },
      startAt: { ...nullableDate, description: 'Launch schedules it for then' },
      throttlePerMinute: { type: ['integer', 'null'], description: 'Messages per minute at most, spread evenly; null: as fast as the phones go' },
      run: { type: 'integer', description: '0 before launch, 1 at launch, +1 per retry of the failed recipients' },
      counts,
      ratePerMinute: { type: 'number', description: 'Recipients sent in the last minute' },
      estimatedEndAt: { ...nullableDate, description: 'At the throttle (or the rate measured), counting only open sending hours; null while no phone is online and enabled' },
      resumesAt: { ...nullableDate, description: 'The send window or night pause holds it until then' },
      createdAt: isoDateTimeSchema,
      updatedAt: isoDateTimeSchema,
      launchedAt: nullableDate,
      completedAt: nullableDate,
      cancelledAt: nullableDate,
    },
  })
  const recipient = registry.addSchema('CampaignRecipient', {
    type: 'object',
    required: ['id', 'contactId', 'phone', 'status', 'errorCode', 'messageId', 'run', 'updatedAt'],
    properties: {
      id: { type: 'string' },
      contactId: { type: ['string', 'null'] },
      phone: { type: 'string' },
      status: { enum: [...recipientStatuses], description: 'pending (not yet a message) or its message status' },
      errorCode: { type: ['string', 'null'], description: 'CONTACT_BLACKLISTED, CAMPAIGN_CANCELLED or the message error' },
      messageId: { type: ['string', 'null'] },
      run: { type: 'integer' },
      updatedAt: isoDateTimeSchema,
    },
  })
  const review = registry.addSchema('CampaignReview', {
    type: 'object',
    required: ['recipients', 'excluded', 'segments', 'encodings', 'sample', 'estimatedDurationSeconds', 'startsAt', 'estimatedEndAt', 'problems'],
    properties: {
      recipients: count,
      excluded: counts.properties.excluded,
      segments: { ...count, description: 'Every recipient’s text counted' },
      encodings: { type: 'object', required: ['gsm7', 'ucs2'], description: 'Recipients per encoding (as messages name them)', properties: { gsm7: count, ucs2: count } },
      sample: {
        type: 'array',
        maxItems: 3,
        items: { type: 'object', properties: { phone: { type: 'string' }, body: { type: 'string' }, encoding: { enum: ['gsm7', 'ucs2'] }, segments: count } },
      },
      estimatedDurationSeconds: { type: ['integer', 'null'], description: 'At the throttle; null without one' },
      startsAt: isoDateTimeSchema,
      estimatedEndAt: nullableDate,
      problems: {
        type: 'array',
        description: 'What would stop or hold the campaign; clients act on `code`, people read `message` (docs/campaigns.md, Review problems)',
        items: {
          type: 'object',
          required: ['code', 'message'],
          additionalProperties: false,
          properties: {
            code: { enum: [...reviewProblemCodes] },
            message: { type: 'string', description: 'The same problem in plain words' },
          },
        },
      },
    },
  })
  return { campaign, recipient, review }
}
