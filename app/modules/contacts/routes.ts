import { contactPermissions } from '#modules/contacts/permissions'
import { defineRoutes } from '#core/contract/route_contract'
import { pageOf } from '#core/contract/schemas'
import type { RouteRegistry } from '#core/contract/route_registry'
import { contactFieldsSchema, contactSchemas, optOutOutcomeSchema } from '#modules/contacts/schemas'
import { createContactValidator, listContactsValidator, optOutContactsValidator, updateContactValidator } from '#modules/contacts/validators/contact_validators'

const ContactsController = () => import('#modules/contacts/controllers/contacts_controller')

/** Contacts: one per number, with their custom fields and the opt-out flag. */
export function contactRoutes(registry: RouteRegistry) {
  registry.describeTag('Contacts', 'People behind numbers; blacklisted is the opt-out flag')
  const { contact } = contactSchemas(registry)

  return defineRoutes([
    {
      method: 'GET',
      path: '/api/v1/contacts',
      operationId: 'listContacts',
      summary: 'Contacts, newest first',
      tag: 'Contacts',
      access: contactPermissions['contacts.read'],
      query: listContactsValidator,
      answer: { status: 200, description: 'A page of contacts', schema: pageOf(contact) },
      errors: ['INVALID_PHONE'],
      handler: [ContactsController, 'index'],
    },
    {
      method: 'POST',
      path: '/api/v1/contacts',
      operationId: 'createContact',
      summary: 'Create a contact',
      tag: 'Contacts',
      access: contactPermissions['contacts.change'],
      body: createContactValidator,
      answer: { status: 201, description: 'The contact', schema: contact },
      errors: ['INVALID_PHONE', 'NAME_TAKEN'],
      handler: [ContactsController, 'store'],
    },
    {
      method: 'GET',
      path: '/api/v1/contacts/fields',
      operationId: 'listContactFields',
      summary: 'The custom field keys contacts use, with how many contacts have each',
      description: 'At most 200 keys, the most used first: the variables a template can use beside the built-in ones.',
      tag: 'Contacts',
      access: contactPermissions['contacts.read'],
      answer: {
        status: 200,
        description: 'The keys in use',
        schema: contactFieldsSchema,
      },
      handler: [ContactsController, 'fields'],
    },
    {
      method: 'POST',
      path: '/api/v1/contacts/opt-out',
      operationId: 'optOutContacts',
      summary: 'Opt out many contacts (up to 1,000 ids, or 10,000 matching a filter, per call)',
      description:
        'Each contact is opted out as PATCH blacklisted: true does: its messages no phone has accepted yet are cancelled ' +
        '(errorCode CONTACT_BLACKLISTED). The contacts named by contactIds (one transaction), or every contact the filters of ' +
        'GET /contacts match (filter; one transaction per 1,000; more than 10,000 is 422 TOO_MANY_CONTACTS and nothing changes). ' +
        'Ids of no contact and contacts already opted out are counted, not refused. With dryRun: true, answers the same counts and changes nothing.',
      tag: 'Contacts',
      access: contactPermissions['contacts.change'],
      body: optOutContactsValidator,
      answer: { status: 200, description: 'What was done', schema: optOutOutcomeSchema },
      errors: ['TOO_MANY_CONTACTS', 'INVALID_PHONE'],
      handler: [ContactsController, 'optOut'],
    },
    {
      method: 'GET',
      path: '/api/v1/contacts/:id',
      operationId: 'getContact',
      summary: 'One contact',
      tag: 'Contacts',
      access: contactPermissions['contacts.read'],
      params: { id: 'Contact identifier' },
      answer: { status: 200, description: 'The contact', schema: contact },
      errors: ['NOT_FOUND'],
      handler: [ContactsController, 'show'],
    },
    {
      method: 'PATCH',
      path: '/api/v1/contacts/:id',
      operationId: 'updateContact',
      summary: 'Change a contact',
      description: 'Partial. Setting blacklisted: true cancels its messages no phone has accepted yet (errorCode CONTACT_BLACKLISTED): waiting ones, and orders an SMSGate app phone has not fetched.',
      tag: 'Contacts',
      access: contactPermissions['contacts.change'],
      body: updateContactValidator,
      params: { id: 'Contact identifier' },
      answer: { status: 200, description: 'The contact', schema: contact },
      errors: ['NOT_FOUND', 'INVALID_PHONE', 'NAME_TAKEN'],
      handler: [ContactsController, 'update'],
    },
    {
      method: 'DELETE',
      path: '/api/v1/contacts/:id',
      operationId: 'deleteContact',
      summary: 'Delete a contact (its conversation stays, without a contact)',
      tag: 'Contacts',
      access: contactPermissions['contacts.change'],
      params: { id: 'Contact identifier' },
      answer: { status: 204, description: 'Deleted' },
      errors: ['NOT_FOUND'],
      handler: [ContactsController, 'destroy'],
    },
  ])
}

/** The contracts as typed, for their handlers' input (`routeInputs<ContactRoutes>()`). */
export type ContactRoutes = ReturnType<typeof contactRoutes>
