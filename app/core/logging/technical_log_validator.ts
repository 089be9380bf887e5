import vine from '@vinejs/vine'
import { pageQueryFields } from '#core/pagination/keyset_page'
import { documentedAs } from '#core/contract/schemas'
import { technicalLogLevels } from '#core/logging/technical_log'

export const listTechnicalLogValidator = vine.compile(
  vine.object({
    ...pageQueryFields,
    level: vine.enum(technicalLogLevels).use(documentedAs({ description: 'This level and the more severe ones' })).optional(),
    search: vine
      .string()
      .trim()
      .minLength(1)
      .maxLength(100)
      .use(documentedAs({ description: 'Words of the line (message, request id, fields) ignoring case, as shown: redacted' }))
      .optional(),
  })
)
