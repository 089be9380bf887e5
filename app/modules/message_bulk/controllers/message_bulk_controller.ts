import { inject } from '@adonisjs/core'
import type { HttpContext } from '@adonisjs/core/http'
import { routeInputs } from '#core/contract/route_contract'
import type { MessageBulkRoutes } from '#modules/message_bulk/routes'
import { MessageBulk } from '#modules/message_bulk/services/message_bulk'

const input = routeInputs<MessageBulkRoutes>()

export default class MessageBulkController {
  @inject()
  async delete(ctx: HttpContext, bulk: MessageBulk) {
    return bulk.run('delete', input(ctx, 'deleteMessages').body)
  }

  @inject()
  async retry(ctx: HttpContext, bulk: MessageBulk) {
    return bulk.run('retry', input(ctx, 'retryMessages').body)
  }
}
