import vine from '@vinejs/vine'
import { pageQueryFields } from '#core/pagination/keyset_page'
import { documentedAs } from '#core/contract/schemas'

const text = (max: number) => vine.string().trim().maxLength(max).nullable()

const fields = {
  phone: vine.string().trim().maxLength(32).use(documentedAs({ description: 'E.164, or local dialled form with a local prefix set' })),
  firstName: text(100),
  lastName: text(100),
  company: text(200),
  email: vine.string().trim().email().maxLength(254).nullable(),
  notes: text(5000),
  tags: vine.array(vine.string().trim().minLength(1).maxLength(50)).maxLength(50).distinct(),
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
    blacklisted: fields.blacklisted.optional(),
  })
)

export const listContactsValidator = vine.compile(
  vine.object({
    ...pageQueryFields,
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
  })
)
