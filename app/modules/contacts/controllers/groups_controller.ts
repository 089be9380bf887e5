import { inject } from '@adonisjs/core'
import type { HttpContext } from '@adonisjs/core/http'
import { idParam } from '#core/http/route_params'
import { ContactGroups } from '#modules/contacts/services/contact_groups'
import { ContactBook } from '#modules/contacts/services/contact_book'
import { routeInputs } from '#core/contract/route_contract'
import type { GroupRoutes } from '#modules/contacts/group_routes'

const input = routeInputs<GroupRoutes>()

@inject()
export default class GroupsController {
  constructor(
    private groups: ContactGroups,
    private contacts: ContactBook
  ) {}

  async index(ctx: HttpContext) {
    return this.groups.list(input(ctx, 'listGroups').query)
  }

  async show({ params }: HttpContext) {
    return this.groups.find(idParam(params.id, 'Group'))
  }

  async store(ctx: HttpContext) {
    const group = await this.groups.create(input(ctx, 'createGroup').body)
    ctx.response.status(201)
    return group
  }

  async update(ctx: HttpContext) {
    return this.groups.update(idParam(ctx.params.id, 'Group'), input(ctx, 'updateGroup').body)
  }

  async destroy({ params, response }: HttpContext) {
    await this.groups.delete(idParam(params.id, 'Group'))
    return response.noContent()
  }

  async members(ctx: HttpContext) {
    const id = idParam(ctx.params.id, 'Group')
    await this.groups.find(id)
    const filters = input(ctx, 'listGroupMembers').query
    return this.contacts.resources(await this.contacts.list({ ...filters, groupId: id }))
  }

  async addMembers(ctx: HttpContext) {
    const { dryRun, ...selection } = input(ctx, 'addGroupMembers').body
    const id = idParam(ctx.params.id, 'Group')
    return this.groups.addMembers(id, await this.contacts.chosen(selection), dryRun)
  }

  async removeMembers(ctx: HttpContext) {
    const { contactIds } = input(ctx, 'removeGroupMembers').body
    return this.groups.removeMembers(idParam(ctx.params.id, 'Group'), contactIds.map(Number))
  }
}
