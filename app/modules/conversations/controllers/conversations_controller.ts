import { inject } from '@adonisjs/core'
import type { HttpContext } from '@adonisjs/core/http'
import { idParam } from '#core/http/route_params'
import { ConversationInbox } from '#modules/conversations/services/conversation_inbox'
import { routeInputs } from '#core/contract/route_contract'
import type { ConversationRoutes } from '#modules/conversations/routes'

const input = routeInputs<ConversationRoutes>()

@inject()
export default class ConversationsController {
  constructor(private inbox: ConversationInbox) {}

  async index(ctx: HttpContext) {
    return this.inbox.list(input(ctx, 'listConversations').query)
  }

  async show({ params }: HttpContext) {
    return this.inbox.show(idParam(params.id, 'Conversation'))
  }

  async update(ctx: HttpContext) {
    return this.inbox.update(idParam(ctx.params.id, 'Conversation'), input(ctx, 'updateConversation').body)
  }
}
