import { inject } from '@adonisjs/core'
import type { HttpContext } from '@adonisjs/core/http'
import { idParam } from '#core/http/route_params'
import { pageQueryValidator } from '#core/pagination/keyset_page'
import { publicEventCatalogue } from '#core/events/public_events'
import { WebhookService } from '#modules/webhooks/services/webhook_service'
import { createWebhookValidator, updateWebhookValidator } from '#modules/webhooks/validators/webhook_validators'

@inject()
export default class WebhooksController {
  constructor(private webhooks: WebhookService) {}

  async index({ request }: HttpContext) {
    return this.webhooks.list(await request.validateUsing(pageQueryValidator, { data: request.qs() }))
  }

  async events() {
    return { data: publicEventCatalogue.entries() }
  }

  async store({ request, response }: HttpContext) {
    const created = await this.webhooks.create(await request.validateUsing(createWebhookValidator, { data: request.body() }))
    return response.created(created)
  }

  async show({ params }: HttpContext) {
    return (await this.webhooks.find(idParam(params.id, 'Webhook'))).toResource()
  }

  async update({ params, request }: HttpContext) {
    return this.webhooks.update(idParam(params.id, 'Webhook'), await request.validateUsing(updateWebhookValidator, { data: request.body() }))
  }

  async destroy({ params, response }: HttpContext) {
    await this.webhooks.delete(idParam(params.id, 'Webhook'))
    return response.noContent()
  }
}
