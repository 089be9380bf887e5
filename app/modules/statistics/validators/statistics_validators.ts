import vine from '@vinejs/vine'
import { IANAZone } from 'luxon'
import { documentedAs } from '#core/contract/schemas'
import { messageCategories } from '#modules/messages/public'

const timeZoneName = vine.createRule((value, _options, field) => {
  if (typeof value !== 'string' || !IANAZone.isValidZone(value)) {
    field.report('The {{ field }} field must be an IANA time zone such as Europe/Paris or UTC', 'timezone', field)
  }
})

/** A date alone is local midnight in `tz`; a date-time without offset is local time in `tz`. */
const localOrAbsoluteDate = (description: string) =>
  vine
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:?\d{2})?)?$/)
    .use(
      documentedAs({
        type: 'string',
        description: `${description}. A date alone (2026-03-29) is local midnight in tz; a date-time without offset is local time in tz`,
        examples: ['2026-03-29', '2026-03-29T00:00:00Z'],
      })
    )

/** The range every statistics endpoint takes (StatisticsRange). */
const range = {
  from: localOrAbsoluteDate('Start of the range (default: local midnight six days before the day of to)').optional(),
  to: localOrAbsoluteDate('End of the range, excluded (default: now)').optional(),
  interval: vine.enum(['day', 'hour'] as const).use(documentedAs({ description: 'Bucket size (default day)' })).optional(),
  tz: vine
    .string()
    .trim()
    .maxLength(64)
    .use(timeZoneName())
    .use(documentedAs({ description: 'IANA time zone of the buckets (default: Settings > Sending timezone)', examples: ['Europe/Paris'] }))
    .optional(),
}

const id = (description: string) => vine.string().regex(/^\d{1,16}$/).use(documentedAs({ type: 'string', pattern: '^\\d{1,16}$', description }))
const deviceId = id('Only messages through this phone').optional()
const simSlot = vine
  .enum(['0', '1'] as const)
  .use(documentedAs({ type: 'string', enum: ['0', '1'], description: "Only messages through this SIM slot (of any phone, or of deviceId's)" }))
  .optional()
const category = vine.enum(messageCategories).optional()
const campaignId = id('Only messages of this campaign').optional()

export const messageVolumeValidator = vine.compile(
  vine.object({ ...range, direction: vine.enum(['in', 'out'] as const).optional(), category, deviceId, simSlot, campaignId })
)

export const volumeBreakdownValidator = vine.compile(
  vine.object({
    ...range,
    groupBy: vine
      .enum(['device', 'sim', 'campaign', 'category'] as const)
      .use(documentedAs({ description: 'device (phone), sim (phone and SIM slot), campaign or category' })),
    direction: vine.enum(['in', 'out'] as const).optional(),
    category,
    deviceId,
    simSlot,
    campaignId,
  })
)

/** Outbound figures (delivery rate, failures): no direction. */
export const outboundFiguresValidator = vine.compile(vine.object({ ...range, category, deviceId, simSlot, campaignId }))

export const latencyValidator = vine.compile(vine.object({ ...range, deviceId, simSlot }))

export const linkClicksValidator = vine.compile(
  vine.object({
    ...range,
    linkId: id('Only this short link').optional(),
    limit: vine
      .number()
      .withoutDecimals()
      .range([1, 100])
      .use(documentedAs({ type: 'integer', minimum: 1, maximum: 100, description: 'How many of the most clicked links to list (default 20)' }))
      .optional(),
  })
)

export const optOutsValidator = vine.compile(vine.object({ ...range }))
