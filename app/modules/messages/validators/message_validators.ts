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
