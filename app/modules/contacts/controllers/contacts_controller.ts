import { inject } from '@adonisjs/core'
import type { HttpContext } from '@adonisjs/core/http'
import { idParam } from '#core/http/route_params'
import { ContactBook } from '#modules/contacts/services/contact_book'
import { ContactStore } from '#modules/contacts/stores/contact_store'
import { routeInputs } from '#core/contract/route_contract'
import type { ContactRoutes } from '#modules/contacts/routes'
import type { ContactFields } from '#modules/contacts/schemas'

const input = routeInputs<ContactRoutes>()

@inject()
export default class ContactsController {
  constructor(
    private contacts: ContactBook,
    private contactStore: ContactStore
  ) {}

  async index(ctx: HttpContext) {
    return this.contacts.resources(await this.contacts.list(input(ctx, 'listContacts').query))
  }

  async fields(): Promise<ContactFields> {
    // Template editors offer them as variables.
    return { data: await this.contactStore.fieldKeys() }
  }

  async show({ params }: HttpContext) {
    return this.contacts.resources(await this.contacts.find(idParam(params.id, 'Contact')))
  }

  async store(ctx: HttpContext) {
    const contact = await this.contacts.create(input(ctx, 'createContact').body)
    ctx.response.status(201)
    return this.contacts.resources(contact)
  }

  async update(ctx: HttpContext) {
    return this.contacts.resources(await this.contacts.update(idParam(ctx.params.id, 'Contact'), input(ctx, 'updateContact').body))
  }

  async optOut(ctx: HttpContext) {
    const { dryRun, ...selection } = input(ctx, 'optOutContacts').body
    return this.contacts.optOut(await this.contacts.chosen(selection), dryRun)
  }

  async destroy({ params, response }: HttpContext) {
    await this.contacts.delete(idParam(params.id, 'Contact'))
    return response.noContent()
  }
}
