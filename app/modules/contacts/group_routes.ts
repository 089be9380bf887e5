import { contactPermissions } from '#modules/contacts/permissions'
import { defineRoutes } from '#core/contract/route_contract'
import { pageOf } from '#core/contract/schemas'
import type { RouteRegistry } from '#core/contract/route_registry'
import { contactSchemas, membersAddedSchema, membersRemovedSchema } from '#modules/contacts/schemas'
import { listContactsValidator } from '#modules/contacts/validators/contact_validators'
import { addGroupMembersValidator, createGroupValidator, groupMembersValidator, listGroupsValidator, updateGroupValidator } from '#modules/contacts/validators/group_validators'

const GroupsController = () => import('#modules/contacts/controllers/groups_controller')

/** Contact groups and their members (docs/campaigns.md, Contact groups). */
export function groupRoutes(registry: RouteRegistry) {
  registry.describeTag('Groups', 'Named sets of contacts that campaigns and rules target')
  const { contact, group } = contactSchemas(registry)
  const groupId = { id: 'Group identifier' }
  return defineRoutes([
    {
      method: 'GET',
      path: '/api/v1/groups',
      operationId: 'listGroups',
      summary: 'Contact groups, newest first, with their member counts',
      tag: 'Groups',
      access: contactPermissions['groups.read'],
      query: listGroupsValidator,
      answer: { status: 200, description: 'A page of groups', schema: pageOf(group) },
      handler: [GroupsController, 'index'],
    },
    {
      method: 'POST',
      path: '/api/v1/groups',
      operationId: 'createGroup',
      summary: 'Create a group',
      tag: 'Groups',
      access: contactPermissions['groups.change'],
      body: createGroupValidator,
      answer: { status: 201, description: 'The group', schema: group },
      errors: ['NAME_TAKEN'],
      handler: [GroupsController, 'store'],
    },
    {
      method: 'GET',
      path: '/api/v1/groups/:id',
      operationId: 'getGroup',
      summary: 'One group',
      tag: 'Groups',
      access: contactPermissions['groups.read'],
      params: groupId,
      answer: { status: 200, description: 'The group', schema: group },
      errors: ['NOT_FOUND'],
      handler: [GroupsController, 'show'],
    },
    {
      method: 'PATCH',
      path: '/api/v1/groups/:id',
      operationId: 'updateGroup',
      summary: 'Rename a group or change its description',
      tag: 'Groups',
      access: contactPermissions['groups.change'],
      params: groupId,
      body: updateGroupValidator,
      answer: { status: 200, description: 'The group', schema: group },
      errors: ['NOT_FOUND', 'NAME_TAKEN'],
      handler: [GroupsController, 'update'],
    },
    {
      method: 'DELETE',
      path: '/api/v1/groups/:id',
      operationId: 'deleteGroup',
      summary: 'Delete a group; its contacts are kept',
      tag: 'Groups',
      access: contactPermissions['groups.change'],
      params: groupId,
      answer: { status: 204, description: 'Deleted (the contacts stay, without this group)' },
      errors: ['NOT_FOUND'],
      handler: [GroupsController, 'destroy'],
    },
    {
      method: 'GET',
      path: '/api/v1/groups/:id/members',
      operationId: 'listGroupMembers',
      summary: "A group's contacts, newest contacts first",
      description: 'The filters of GET /contacts (q, blacklisted, tag, phone) apply within the group.',
      tag: 'Groups',
      access: contactPermissions['groups.read'],
      params: groupId,
      query: listContactsValidator,
      answer: { status: 200, description: 'A page of contacts', schema: pageOf(contact) },
      errors: ['NOT_FOUND', 'INVALID_PHONE'],
      handler: [GroupsController, 'members'],
    },
    {
      method: 'POST',
      path: '/api/v1/groups/:id/members',
      operationId: 'addGroupMembers',
      summary: 'Add contacts to a group (up to 10,000 per call)',
      description:
        'The contacts named by contactIds, or every contact the filters of GET /contacts match (filter; at most 10,000 in one ' +
        'request, more is 422 TOO_MANY_CONTACTS and nothing changes). Contacts already in the group and ids of no contact are ' +
        'counted, not refused. With dryRun: true, answers the same counts and changes nothing.',
      tag: 'Groups',
      access: contactPermissions['groups.change'],
      params: groupId,
      body: addGroupMembersValidator,
      answer: {
        status: 200,
        description: 'What changed',
        schema: membersAddedSchema,
      },
      errors: ['NOT_FOUND', 'TOO_MANY_CONTACTS', 'INVALID_PHONE'],
      handler: [GroupsController, 'addMembers'],
    },
    {
      method: 'POST',
      path: '/api/v1/groups/:id/members/remove',
      operationId: 'removeGroupMembers',
      summary: 'Remove contacts from a group (up to 10,000 per call); the contacts are kept',
      tag: 'Groups',
      access: contactPermissions['groups.change'],
      params: groupId,
      body: groupMembersValidator,
      answer: {
        status: 200,
        description: 'How many left the group',
        schema: membersRemovedSchema,
      },
      errors: ['NOT_FOUND'],
      handler: [GroupsController, 'removeMembers'],
    },
  ])
}

/** The contracts as typed, for their handlers' input (`routeInputs<GroupRoutes>()`). */
export type GroupRoutes = ReturnType<typeof groupRoutes>
