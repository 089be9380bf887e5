import { inject } from '@adonisjs/core'
import type { HttpContext } from '@adonisjs/core/http'
import { idParam } from '#core/http/route_params'
import { publicEventCatalogue } from '#core/events/public_events'
import { WebhookService } from '#modules/webhooks/services/webhook_service'
import { routeInputs } from '#core/contract/route_contract'
import type { WebhookRoutes } from '#modules/webhooks/routes'
import type { WebhookEventList } from '#modules/webhooks/schemas'

const input = routeInputs<WebhookRoutes>()

@inject()
export default class WebhooksController {
  constructor(private webhooks: WebhookService) {}

  async index(ctx: HttpContext) {
    return this.webhooks.list(input(ctx, 'listWebhooks').query)
  }

  async events(): Promise<WebhookEventList> {
    return { data: publicEventCatalogue.entries() }
  }

  async store(ctx: HttpContext) {
    const created = await this.webhooks.create(input(ctx, 'createWebhook').body, ctx.caller!)
    return ctx.response.created(created)
  }

  async show({ params }: HttpContext) {
    return (await this.webhooks.find(idParam(params.id, 'Webhook'))).toResource()
  }

  async update(ctx: HttpContext) {
    return this.webhooks.update(idParam(ctx.params.id, 'Webhook'), input(ctx, 'updateWebhook').body, ctx.caller!)
  }

  async destroy({ params, response, caller }: HttpContext) {
    await this.webhooks.delete(idParam(params.id, 'Webhook'), caller!)
    return response.noContent()
  }
}
