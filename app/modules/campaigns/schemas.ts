import type { RouteRegistry } from '#core/contract/route_registry'
import type { JsonOf } from '#core/contract/typed_schema'
import { isoDateTimeSchema } from '#core/contract/schemas'
import { campaignStatuses, recipientStatuses } from '#modules/campaigns/validators/campaign_validators'
import { reviewProblemCodes } from '#modules/campaigns/services/campaign_review'

const nullableDate = { type: ['string', 'null'], format: 'date-time' } as const
const ids = { type: 'array', items: { type: 'string' } } as const
const count = { type: 'integer' } as const

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
} as const

/** The Campaign resource; `CampaignBook.present` (services/campaign_book.ts) answers it. */
export const campaignSchema = {
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
} as const
export type CampaignResource = JsonOf<typeof campaignSchema>

/** A campaign's recipient (errorCode: its message's, or why no message was made). */
export const recipientSchema = {
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
} as const
export type RecipientResource = JsonOf<typeof recipientSchema>

/** What a launch would do (`reviewCampaign`, services/campaign_review.ts). */
export const reviewSchema = {
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
} as const
export type CampaignReview = JsonOf<typeof reviewSchema>

/** Campaign resources as published in the OpenAPI document (tag Campaigns; docs/campaigns.md). */
export function campaignSchemas(registry: RouteRegistry) {
  return {
    campaign: registry.addSchema('Campaign', campaignSchema),
    recipient: registry.addSchema('CampaignRecipient', recipientSchema),
    review: registry.addSchema('CampaignReview', reviewSchema),
  }
}


const templateCount = { type: 'integer', minimum: 0 } as const
const encoding = { enum: ['gsm7', 'ucs2'] } as const

/** The Template resource; `templateResource` (services/template_library.ts) answers it. */
export const templateSchema = {
  type: 'object',
  required: ['id', 'name', 'body', 'variables', 'encoding', 'segments', 'characters', 'createdAt', 'updatedAt'],
  additionalProperties: false,
  properties: {
    id: { type: 'string' },
    name: { type: 'string', description: 'Unique (case-insensitive)' },
    body: { type: 'string' },
    variables: {
      type: 'array',
      description: 'The variables the text uses, each once, in order of first use',
      items: {
        type: 'object',
        required: ['key', 'fallback'],
        additionalProperties: false,
        properties: { key: { type: 'string' }, fallback: { type: ['string', 'null'], description: 'Shown when the value is empty' } },
      },
    },
    encoding: { ...encoding, description: 'Of the text with each variable as its fallback (or nothing); a recipient’s values may change it (see the preview)' },
    segments: { ...templateCount, description: 'SMS parts of that text' },
    characters: { ...templateCount, description: 'Characters of that text' },
    createdAt: isoDateTimeSchema,
    updatedAt: isoDateTimeSchema,
  },
} as const
export type TemplateResource = JsonOf<typeof templateSchema>

/** What `TemplatePreview.preview` (services/template_preview.ts) answers. */
export const templatePreviewSchema = {
  type: 'object',
  required: ['recipients', 'totals', 'notFound'],
  additionalProperties: false,
  properties: {
    recipients: {
      type: 'array',
      description: 'The contacts given, then the numbers given; with none, one render for a contact with no data (every fallback shows)',
      items: {
        type: 'object',
        required: ['contactId', 'phone', 'body', 'encoding', 'segments', 'characters', 'missing'],
        additionalProperties: false,
        properties: {
          contactId: { type: ['string', 'null'] },
          phone: { type: ['string', 'null'], description: 'E.164; null for the no-data render' },
          body: { type: 'string', description: 'The text this recipient would receive' },
          encoding,
          segments: templateCount,
          characters: templateCount,
          missing: { type: 'array', items: { type: 'string' }, description: 'Variables with no value for this recipient and no fallback (they render as nothing)' },
        },
      },
    },
    totals: {
      type: 'object',
      required: ['recipients', 'segments', 'encodings'],
      additionalProperties: false,
      properties: {
        recipients: templateCount,
        segments: templateCount,
        encodings: { type: 'object', required: ['gsm7', 'ucs2'], additionalProperties: false, properties: { gsm7: templateCount, ucs2: templateCount } },
      },
    },
    notFound: { type: 'array', items: { type: 'string' }, description: 'Contact ids given that are no contact' },
  },
} as const
export type TemplatePreviewAnswer = JsonOf<typeof templatePreviewSchema>

/** Template resources as published in the OpenAPI document (tag Templates). */
export function templateSchemas(registry: RouteRegistry) {
  return { template: registry.addSchema('Template', templateSchema), preview: registry.addSchema('TemplatePreview', templatePreviewSchema) }
}
