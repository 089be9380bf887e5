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

export const messageVolumeValidator = vine.compile(
  vine.object({
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
    direction: vine.enum(['in', 'out'] as const).optional(),
    category: vine.enum(messageCategories).optional(),
    deviceId: vine.string().regex(/^\d{1,16}$/).use(documentedAs({ description: 'Only messages through this phone' })).optional(),
  })
)
