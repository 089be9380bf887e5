import type { RouteRegistry } from '#core/contract/route_registry'
import type { JsonOf } from '#core/contract/typed_schema'
import { isoDateTimeSchema } from '#core/contract/schemas'

/** The Contact resource; `Contact.toResource` (models/contact.ts) answers it. */
export const contactSchema = {
  type: 'object',
  required: ['id', 'phone', 'firstName', 'lastName', 'company', 'email', 'notes', 'tags', 'fields', 'groups', 'blacklisted', 'createdAt', 'updatedAt'],
  properties: {
    id: { type: 'string' },
    phone: { type: 'string', description: 'E.164, unique' },
    firstName: { type: ['string', 'null'] },
    lastName: { type: ['string', 'null'] },
    company: { type: ['string', 'null'] },
    email: { type: ['string', 'null'] },
    notes: { type: ['string', 'null'] },
    tags: { type: 'array', items: { type: 'string' } },
    fields: { type: 'object', additionalProperties: { type: 'string' }, description: 'Custom fields by key ({{key}} in templates)' },
    groups: {
      type: 'array',
      description: 'The groups the contact is in, by name',
      items: { type: 'object', required: ['id', 'name'], additionalProperties: false, properties: { id: { type: 'string' }, name: { type: 'string' } } },
    },
    blacklisted: { type: 'boolean', description: 'Opted out: never sent to' },
    createdAt: isoDateTimeSchema,
    updatedAt: isoDateTimeSchema,
  },
} as const
export type ContactResource = JsonOf<typeof contactSchema>

/** The Group resource; `ContactGroup.toResource` (models/contact_group.ts) answers it. */
export const groupSchema = {
  type: 'object',
  description: 'A named set of contacts that campaigns and rules target',
  required: ['id', 'name', 'description', 'memberCount', 'createdAt', 'updatedAt'],
  additionalProperties: false,
  properties: {
    id: { type: 'string' },
    name: { type: 'string', description: 'Unique (case-insensitive)' },
    description: { type: ['string', 'null'] },
    memberCount: { type: 'integer', minimum: 0 },
    createdAt: isoDateTimeSchema,
    updatedAt: isoDateTimeSchema,
  },
} as const
export type GroupResource = JsonOf<typeof groupSchema>

const count = { type: 'integer', minimum: 0 } as const

/** GET /contacts/fields: the custom field keys in use and how many contacts have each. */
export const contactFieldsSchema = {
  type: 'object',
  required: ['data'],
  additionalProperties: false,
  properties: {
    data: {
      type: 'array',
      items: {
        type: 'object',
        required: ['key', 'contacts'],
        additionalProperties: false,
        properties: { key: { type: 'string' }, contacts: { type: 'integer', minimum: 1 } },
      },
    },
  },
} as const
export type ContactFields = JsonOf<typeof contactFieldsSchema>

export const membersAddedSchema = {
  type: 'object',
  required: ['added', 'alreadyMembers', 'notFound'],
  additionalProperties: false,
  properties: { added: count, alreadyMembers: count, notFound: { ...count, description: 'Ids of no contact' } },
} as const
export type MembersAdded = JsonOf<typeof membersAddedSchema>

export const membersRemovedSchema = { type: 'object', required: ['removed'], additionalProperties: false, properties: { removed: count } } as const
export type MembersRemoved = JsonOf<typeof membersRemovedSchema>

/** The answer of a bulk opt-out: the contacts named, those opted out now, the rest by reason. */
export const optOutOutcomeSchema = {
  type: 'object',
  required: ['matched', 'changed', 'skipped'],
  additionalProperties: false,
  properties: {
    matched: { ...count, description: 'Contacts the ids named (each once) or the filter matched' },
    changed: { ...count, description: 'Opted out by this call' },
    skipped: {
      type: 'object',
      description: 'The rest, counted by reason; a reason with none is absent',
      additionalProperties: false,
      properties: { not_found: { ...count, description: 'Ids of no contact' }, already_opted_out: count },
    },
  },
} as const
export type OptOutOutcome = JsonOf<typeof optOutOutcomeSchema>

/** The module's resources as published in the OpenAPI document. */
export function contactSchemas(registry: RouteRegistry) {
  const contact = registry.addSchema('Contact', contactSchema)
  const group = registry.addSchema('Group', groupSchema)
  return { contact, group }
}
