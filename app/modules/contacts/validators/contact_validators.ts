import vine from '@vinejs/vine'
import { BUILT_IN_VARIABLES } from '#core/sms/template_text'
import { pageQueryFields } from '#core/pagination/keyset_page'
import { documentedAs } from '#core/contract/schemas'

/** Template variables a contact always has: a custom field may not take their name. */
export const RESERVED_FIELD_KEYS = BUILT_IN_VARIABLES
export const CUSTOM_FIELD_KEY = /^[A-Za-z][A-Za-z0-9_]{0,39}$/
export const MAX_FIELDS = 30
export const MAX_FIELD_VALUE = 500

const customFieldKeys = vine.createRule((value, _options, field) => {
  if (!value || typeof value !== 'object') return
  const keys = Object.keys(value)
  if (keys.length > MAX_FIELDS) {
    field.report(`The {{ field }} field may hold at most ${MAX_FIELDS} custom fields`, 'maxFields', field)
    return
  }
  for (const key of keys) {
    if (!CUSTOM_FIELD_KEY.test(key) || RESERVED_FIELD_KEYS.includes(key)) {
      field.report(
        'The {{ field }} field has a key that is not usable: a letter, then letters, digits or _ (up to 40), and not a built-in variable name',
        'fieldKey',
        field
      )
      return
    }
  }
})

const text = (max: number) => vine.string().trim().maxLength(max).nullable()

const fields = {
  phone: vine.string().trim().maxLength(32).use(documentedAs({ description: 'E.164, or local dialled form with a local prefix set' })),
  firstName: text(100),
  lastName: text(100),
  company: text(200),
  email: vine.string().trim().email().maxLength(254).nullable(),
  notes: text(5000),
  tags: vine.array(vine.string().trim().minLength(1).maxLength(50)).maxLength(50).distinct(),
  fields: vine
    .record(vine.string().trim().maxLength(MAX_FIELD_VALUE))
    .use(customFieldKeys())
    .use(
      documentedAs({
        description:
          `Custom fields by key (at most ${MAX_FIELDS}; keys: a letter then letters, digits or _, up to 40, not one of ` +
          `${RESERVED_FIELD_KEYS.join(', ')}). Replaces the whole set on update; usable in templates as {{key}}`,
      })
    ),
  blacklisted: vine.boolean({ strict: true }),
}

export const createContactValidator = vine.compile(
  vine.object({
    phone: fields.phone,
    firstName: fields.firstName.optional(),
    lastName: fields.lastName.optional(),
    company: fields.company.optional(),
    email: fields.email.optional(),
    notes: fields.notes.optional(),
    tags: fields.tags.optional(),
    fields: fields.fields.optional(),
    blacklisted: fields.blacklisted.optional(),
  })
)

export const updateContactValidator = vine.compile(
  vine.object({
    phone: fields.phone.optional(),
    firstName: fields.firstName.optional(),
    lastName: fields.lastName.optional(),
    company: fields.company.optional(),
    email: fields.email.optional(),
    notes: fields.notes.optional(),
    tags: fields.tags.optional(),
    fields: fields.fields.optional(),
    blacklisted: fields.blacklisted.optional(),
  })
)

/** The list's filters, which an action over many contacts takes as its `filter` too. */
export const contactFilterFields = {
  blacklisted: vine.boolean().optional(),
  tag: vine.string().trim().maxLength(50).optional(),
  phone: vine.string().trim().maxLength(32).optional(),
  q: vine
    .string()
    .trim()
    .minLength(1)
    .maxLength(100)
    .use(
      documentedAs({
        description:
          'Search: contacts whose first name, last name, full name, company or e-mail contains the text (case-insensitive for ' +
          'ASCII letters), or whose number contains its digits when it is written like a number (+, digits, spaces, dashes, dots, brackets)',
      })
    )
    .optional(),
}

export const listContactsValidator = vine.compile(vine.object({ ...pageQueryFields, ...contactFilterFields }))

/**
 * Contacts an action's filter may match: done in one request, in chunks, so the answer says what
 * was done; past it the caller narrows the search (docs/campaigns.md, Contact groups).
 */
export const MAX_CONTACT_MATCHES = 10_000

/** The contacts an action over many takes: `contactIds` or `filter`, one of them (checked by ContactBook.chosen). */
export function contactSelectionFields(maxIds: number) {
  return {
    contactIds: vine
      .array(vine.string().regex(/^\d{1,15}$/))
      .minLength(1)
      .maxLength(maxIds)
      .use(documentedAs({ description: `Contact identifiers, 1 to ${maxIds}; give contactIds or filter` }))
      .optional(),
    // In a JSON body a boolean is a JSON boolean; the list reads it from a query string ("true").
    filter: vine
      .object({ ...contactFilterFields, blacklisted: vine.boolean({ strict: true }).optional() })
      .use(
        documentedAs({
          description: `The filters of GET /contacts (q, blacklisted, tag, phone): every contact they match, at most ${MAX_CONTACT_MATCHES}; give contactIds or filter`,
        })
      )
      .optional(),
    dryRun: vine
      .boolean({ strict: true })
      .use(documentedAs({ description: 'true: answer what would be done and change nothing' }))
      .optional(),
  }
}

/** Contacts one opt-out call takes: a dashboard page's selection, several pages of it. */
export const MAX_OPT_OUTS_PER_CALL = 1000

export const optOutContactsValidator = vine.compile(vine.object(contactSelectionFields(MAX_OPT_OUTS_PER_CALL)))
