import vine from '@vinejs/vine'
import { documentedAs, isoDateTimeSchema } from '#core/contract/schemas'
import { messageCategories } from '#modules/messages/models/message'

/** 1 to 500 recipients; more is a campaign (docs/sending.md, The request). */
export const MAX_RECIPIENTS = 500

/**
 * The send request (docs/sending.md, The request). `to` and `body` are checked by the send service
 * itself, for their own codes (INVALID_PHONE with the position, EMPTY_BODY); here they are only
 * documented. templateId and variables are accepted and ignored, as that page says.
 */
export const sendValidator = vine.compile(
  vine.object({
    to: vine.any().use(
      documentedAs({
        description: `One number, or an array of 1 to ${MAX_RECIPIENTS}: E.164, or local dialled form when Settings > Reception has a local prefix`,
        oneOf: [
          { type: 'string', examples: ['+33612345678'] },
          { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: MAX_RECIPIENTS },
        ],
      })
    ),
    body: vine
      .any()
      .use(documentedAs({ type: 'string', minLength: 1, description: 'Any non-empty text; no length limit. Missing or empty: EMPTY_BODY' }))
      .optional(),
    deviceId: vine.string().trim().minLength(1).maxLength(64).optional(),
    simSlot: vine.number({ strict: true }).in([0, 1]).optional(),
    scheduledAt: vine
      .string()
      .use(documentedAs({ ...isoDateTimeSchema, description: 'Future ISO 8601 date; the message stays queued until then' }))
      .optional(),
    category: vine.enum(messageCategories).optional(),
    shortenLinks: vine.boolean({ strict: true }).optional(),
    templateId: vine.any().optional(),
    variables: vine.any().optional(),
  })
)
