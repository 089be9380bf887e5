import vine from '@vinejs/vine'
import { pageQueryFields } from '#core/pagination/keyset_page'
import { documentedAs } from '#core/contract/schemas'
import { contactSelectionFields } from '#modules/contacts/validators/contact_validators'

/** Ids changed by one call at most: one or two statements, whatever the number. */
export const MAX_MEMBERS_PER_CALL = 10_000

const name = vine.string().trim().minLength(1).maxLength(100)
const description = vine.string().trim().maxLength(500).nullable()
const search = vine
  .string()
  .trim()
  .minLength(1)
  .maxLength(100)
  .use(documentedAs({ description: 'Search: names containing the text (case-insensitive for ASCII letters)' }))

export const createGroupValidator = vine.compile(vine.object({ name, description: description.optional() }))
export const updateGroupValidator = vine.compile(vine.object({ name: name.optional(), description: description.optional() }))
export const listGroupsValidator = vine.compile(vine.object({ ...pageQueryFields, q: search.optional() }))

/** Contacts added: their ids, or every contact the list's filters match. */
export const addGroupMembersValidator = vine.compile(vine.object(contactSelectionFields(MAX_MEMBERS_PER_CALL)))

/** Contacts removed: their ids. */
export const groupMembersValidator = vine.compile(
  vine.object({
    contactIds: vine
      .array(vine.string().regex(/^\d{1,15}$/))
      .minLength(1)
      .maxLength(MAX_MEMBERS_PER_CALL)
      .use(documentedAs({ description: `Contact identifiers, 1 to ${MAX_MEMBERS_PER_CALL}` })),
  })
)
