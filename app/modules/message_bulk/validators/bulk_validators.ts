import vine from '@vinejs/vine'
import { documentedAs } from '#core/contract/schemas'
import { messageFilterFields } from '#modules/messages/public'

/** Ids one bulk action takes: a dashboard page's selection, several pages of it. */
export const MAX_BULK_IDS = 1000
/**
 * Messages a bulk action's filter may match: done in one request, in chunks, so the answer says
 * what was done; past it the caller narrows the filter (docs/sending.md, Many messages at once).
 */
export const MAX_BULK_MATCHES = 10_000

/** `ids` or `filter`, one of them (checked by MessageBulk: the schema cannot say "exactly one"). */
export const bulkMessagesValidator = vine.compile(
  vine.object({
    ids: vine
      .array(vine.string().regex(/^\d{1,16}$/))
      .minLength(1)
      .maxLength(MAX_BULK_IDS)
      .use(documentedAs({ description: `Message identifiers, 1 to ${MAX_BULK_IDS}; give ids or filter` }))
      .optional(),
    filter: vine
      .object(messageFilterFields)
      .use(
        documentedAs({
          description: `The filters of GET /messages (q included): every message they match, at most ${MAX_BULK_MATCHES}; give ids or filter`,
        })
      )
      .optional(),
    dryRun: vine
      .boolean({ strict: true })
      .use(documentedAs({ description: 'true: answer what would be done (matched, changed, skipped) and change nothing' }))
      .optional(),
  })
)
