import { inject } from '@adonisjs/core'
import type { HttpContext } from '@adonisjs/core/http'
import { idParam } from '#core/http/route_params'
import { ContactBook } from '#modules/contacts/services/contact_book'
import { contactFieldKeys } from '#modules/contacts/services/contact_field_keys'
import { createContactValidator, listContactsValidator, updateContactValidator } from '#modules/contacts/validators/contact_validators'

@inject()
export default class ContactsController {
  constructor(private contacts: ContactBook) {}

  async index({ request }: HttpContext) {
    return this.contacts.resources(await this.contacts.list(await request.validateUsing(listContactsValidator, { data: request.qs() })))
  }

  async fields() {
    return { data: await contactFieldKeys() }
  }

  async show({ params }: HttpContext) {
    return this.contacts.resources(await this.contacts.find(idParam(params.id, 'Contact')))
  }

  async store({ request, response }: HttpContext) {
    const contact = await this.contacts.create(await request.validateUsing(createContactValidator, { data: request.body() }))
    response.status(201)
    return this.contacts.resources(contact)
  }

  async update({ request, params }: HttpContext) {
    return this.contacts.resources(await this.contacts.update(idParam(params.id, 'Contact'), await request.validateUsing(updateContactValidator, { data: request.body() })))
  }

  async destroy({ params, response }: HttpContext) {
    await this.contacts.delete(idParam(params.id, 'Contact'))
    return response.noContent()
  }
}
