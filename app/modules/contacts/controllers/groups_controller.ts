import { inject } from '@adonisjs/core'
import type { HttpContext } from '@adonisjs/core/http'
import { idParam } from '#core/http/route_params'
import { ContactGroups } from '#modules/contacts/services/contact_groups'
import { ContactBook } from '#modules/contacts/services/contact_book'
import { listContactsValidator } from '#modules/contacts/validators/contact_validators'
import { createGroupValidator, groupMembersValidator, listGroupsValidator, updateGroupValidator } from '#modules/contacts/validators/group_validators'

@inject()
export default class GroupsController {
  constructor(
    private groups: ContactGroups,
    private contacts: ContactBook
  ) {}

  async index({ request }: HttpContext) {
    return this.groups.list(await request.validateUsing(listGroupsValidator, { data: request.qs() }))
  }

  async show({ params }: HttpContext) {
    return this.groups.find(idParam(params.id, 'Group'))
  }

  async store({ request, response }: HttpContext) {
    const group = await this.groups.create(await request.validateUsing(createGroupValidator, { data: request.body() }))
    response.status(201)
    return group
  }

  async update({ request, params }: HttpContext) {
    return this.groups.update(idParam(params.id, 'Group'), await request.validateUsing(updateGroupValidator, { data: request.body() }))
  }

  async destroy({ params, response }: HttpContext) {
    await this.groups.delete(idParam(params.id, 'Group'))
    return response.noContent()
  }

  async members({ request, params }: HttpContext) {
    const id = idParam(params.id, 'Group')
    await this.groups.find(id)
    const filters = await request.validateUsing(listContactsValidator, { data: request.qs() })
    return this.contacts.resources(await this.contacts.list({ ...filters, groupId: id }))
  }

  async addMembers({ request, params }: HttpContext) {
    const { contactIds } = await request.validateUsing(groupMembersValidator, { data: request.body() })
    return this.groups.addMembers(idParam(params.id, 'Group'), contactIds.map(Number))
  }

  async removeMembers({ request, params }: HttpContext) {
    const { contactIds } = await request.validateUsing(groupMembersValidator, { data: request.body() })
    return this.groups.removeMembers(idParam(params.id, 'Group'), contactIds.map(Number))
  }
}
