import { inject } from '@adonisjs/core'
import type { HttpContext } from '@adonisjs/core/http'
import { idParam } from '#core/http/route_params'
import { DeliveryLog } from '#modules/webhooks/services/delivery_log'
import { FailingDeliveries } from '#modules/webhooks/services/failing_deliveries'
import { routeInputs } from '#core/contract/route_contract'
import type { WebhookRoutes } from '#modules/webhooks/routes'

const input = routeInputs<WebhookRoutes>()

@inject()
export default class DeliveriesController {
  constructor(
    private log: DeliveryLog,
    private failingDeliveries: FailingDeliveries
  ) {}

  async index(ctx: HttpContext) {
    return this.log.list(input(ctx, 'listWebhookDeliveries').query)
  }

  async failing() {
    return this.failingDeliveries.summary()
  }

  async replay({ params, response }: HttpContext) {
    return response.created(await this.log.replay(idParam(params.id, 'Delivery')))
  }
}
