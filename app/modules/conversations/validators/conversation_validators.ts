import vine from '@vinejs/vine'
import { pageQueryFields } from '#core/pagination/keyset_page'
import { documentedAs } from '#core/contract/schemas'

/** What `q` of the conversations list matches (docs/sending.md, Search). */
const CONVERSATION_SEARCH =
  'Search, 1 to 100 characters: conversations holding a message that `q` of GET /api/v1/messages matches (its words in the ' +
  'text, or a part of the number), whose number holds the digits of a `q` written like a number, or whose number is a ' +
  "contact's whose name holds every word. Same order and paging as without it"
import { conversationStates, messageCategories } from '#modules/conversations/conversation_values'

export const listConversationsValidator = vine.compile(
  vine.object({
    ...pageQueryFields,
    state: vine.enum(conversationStates).optional(),
    category: vine.enum(messageCategories).optional(),
    archived: vine.boolean().optional(),
    pinned: vine.boolean().optional(),
    /** true: conversations with unread messages; false: those read to the end. */
    unread: vine.boolean().optional(),
    q: vine.string().trim().minLength(1).maxLength(100).use(documentedAs({ description: CONVERSATION_SEARCH })).optional(),
  })
)

export const updateConversationValidator = vine.compile(
  vine.object({
    pinned: vine.boolean({ strict: true }).optional(),
    archived: vine.boolean({ strict: true }).optional(),
    /** A dashboard account id, or null to unassign. */
    assignedTo: vine.string().regex(/^\d{1,16}$/).nullable().optional(),
    /** true marks every message read (unreadCount back to 0); an enum, as a literal would take "true" or 1. */
    markRead: vine.enum([true] as const).optional(),
  })
)
