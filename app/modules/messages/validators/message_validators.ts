import vine from '@vinejs/vine'
import { dateBoundField, pageQueryFields } from '#core/pagination/keyset_page'
import { documentedAs } from '#core/contract/schemas'
import { messageCategories, messageStatuses } from '#modules/messages/message_values'
import { SEARCH_DESCRIPTION } from '#modules/messages/validators/search_field'

/** The list's filters, which a bulk action's `filter` takes too (the message_bulk module's validator). */
export const messageFilterFields = {
  direction: vine.enum(['in', 'out'] as const).optional(),
  status: vine.enum(messageStatuses).optional(),
  category: vine.enum(messageCategories).optional(),
  phone: vine.string().trim().maxLength(32).use(documentedAs({ description: 'E.164 number (or local form with a local prefix set)' })).optional(),
  conversationId: vine.string().regex(/^\d{1,16}$/).optional(),
  deviceId: vine.string().regex(/^\d{1,16}$/).use(documentedAs({ description: 'The phone that sent or received it' })).optional(),
  campaignId: vine.string().regex(/^\d{1,16}$/).use(documentedAs({ description: 'The campaign that queued it' })).optional(),
  since: dateBoundField().use(documentedAs({ description: 'Created at or after' })).optional(),
  until: dateBoundField().use(documentedAs({ description: 'Created before' })).optional(),
  q: vine.string().trim().minLength(1).maxLength(100).use(documentedAs({ description: SEARCH_DESCRIPTION })).optional(),
}

export const listMessagesValidator = vine.compile(vine.object({ ...pageQueryFields, ...messageFilterFields }))

/**
 * Ids an export of a page's selection takes: a comma list in the address, kept short enough for
 * any proxy's address limit (a larger selection is exported by its filters, docs/exports.md).
 */
export const MAX_EXPORT_IDS = 500

/**
 * The query parser splits a comma list into an array (into an object past 20 items): the list is
 * joined back, so the pattern below checks it whole.
 */
function commaList(value: unknown): unknown {
  if (Array.isArray(value)) return value.join(',')
  if (value && typeof value === 'object') return Object.values(value).join(',')
  return value
}

/** The query of the messages export: the list's filters, and the ids of a selection. */
export const messageExportFilterFields = {
  ...messageFilterFields,
  ids: vine
    .string()
    .parse(commaList)
    .regex(new RegExp(`^\\d{1,16}(,\\d{1,16}){0,${MAX_EXPORT_IDS - 1}}$`))
    .use(documentedAs({ description: `Message identifiers separated by commas, 1 to ${MAX_EXPORT_IDS}: only these messages (with the filters, those of them that match)` }))
    .optional(),
}
