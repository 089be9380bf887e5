import vine from '@vinejs/vine'
import { pageQueryFields } from '#core/pagination/keyset_page'
import { documentedAs, isoDateTimeSchema } from '#core/contract/schemas'

const id = () => vine.string().regex(/^\d{1,16}$/)
/** Ids and numbers a campaign names directly; groups and imports carry the large audiences. */
export const MAX_AUDIENCE_ITEMS = 100_000

const audience = vine.object({
  groupIds: vine.array(id()).maxLength(1000).optional(),
  contactIds: vine.array(id()).maxLength(MAX_AUDIENCE_ITEMS).optional(),
  numbers: vine
    .array(vine.string().trim().minLength(1).maxLength(32))
    .maxLength(MAX_AUDIENCE_ITEMS)
    .use(documentedAs({ type: 'array', items: { type: 'string' }, description: 'E.164 or local dialled numbers; invalid ones are counted at launch, not refused' }))
    .optional(),
  importIds: vine.array(id()).maxLength(1000).optional(),
})

const fields = {
  name: vine.string().trim().minLength(1).maxLength(200),
  body: vine.string().maxLength(5000).nullable(),
  templateId: id()
    .use(documentedAs({ type: ['string', 'null'], description: 'A template whose text is taken at launch (when body is null)' }))
    .nullable(),
  audience,
  deviceId: vine.string().trim().minLength(1).maxLength(64).nullable(),
  simSlot: vine.number({ strict: true }).in([0, 1]).nullable(),
  startAt: vine
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}T[\d:.]+(Z|[+-]\d{2}:?\d{2})$/)
    .use(documentedAs({ ...isoDateTimeSchema, type: ['string', 'null'], description: 'Launch schedules it for then; null: starts at launch' }))
    .nullable(),
  throttlePerMinute: vine.number({ strict: true }).withoutDecimals().range([1, 6000]).nullable(),
}

export const createCampaignValidator = vine.compile(
  vine.object({
    name: fields.name,
    body: fields.body.optional(),
    templateId: fields.templateId.optional(),
    audience: fields.audience.optional(),
    deviceId: fields.deviceId.optional(),
    simSlot: fields.simSlot.optional(),
    startAt: fields.startAt.optional(),
    throttlePerMinute: fields.throttlePerMinute.optional(),
  })
)

export const updateCampaignValidator = vine.compile(
  vine.object({
    name: fields.name.optional(),
    body: fields.body.optional(),
    templateId: fields.templateId.optional(),
    audience: fields.audience.optional(),
    deviceId: fields.deviceId.optional(),
    simSlot: fields.simSlot.optional(),
    startAt: fields.startAt.optional(),
    throttlePerMinute: fields.throttlePerMinute.optional(),
  })
)

export const campaignStatuses = ['draft', 'scheduled', 'running', 'paused', 'completed', 'cancelled'] as const
export const listCampaignsValidator = vine.compile(vine.object({ ...pageQueryFields, status: vine.enum(campaignStatuses).optional() }))

export const recipientStatuses = ['pending', 'queued', 'dispatched', 'sent', 'delivered', 'failed', 'paused', 'cancelled', 'pending_quota_exceeded'] as const

export const listRecipientsValidator = vine.compile(
  vine.object({
    ...pageQueryFields,
    status: vine.enum(recipientStatuses).optional(),
    run: vine.number().withoutDecimals().range([1, 1000]).optional(),
  })
)

export const exportRecipientsValidator = vine.compile(vine.object({ format: vine.enum(['csv', 'json'] as const).optional() }))
