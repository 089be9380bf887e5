import { inject } from '@adonisjs/core'
import type { HttpContext } from '@adonisjs/core/http'
import { routeInputs } from '#core/contract/route_contract'
import type { MessageBulkRoutes } from '#modules/message_bulk/routes'
import { MessageBulk } from '#modules/message_bulk/services/message_bulk'

const input = routeInputs<MessageBulkRoutes>()

@inject()
export default class MessageBulkController {
  constructor(private bulk: MessageBulk) {}

  async delete(ctx: HttpContext) {
    return this.bulk.run('delete', input(ctx, 'deleteMessages').body, ctx.caller!)
  }

  async retry(ctx: HttpContext) {
    return this.bulk.run('retry', input(ctx, 'retryMessages').body, ctx.caller!)
  }
}
