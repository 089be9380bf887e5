import { inject } from '@adonisjs/core'
import type { HttpContext } from '@adonisjs/core/http'
import { idParam } from '#core/http/route_params'
import { MessageQueries } from '#modules/messages/services/message_queries'
import { routeInputs } from '#core/contract/route_contract'
import type { MessageRoutes } from '#modules/messages/routes'
import { ConversationBook } from '#modules/conversations/public'

const input = routeInputs<MessageRoutes>()

/** The send is the sending module's (`SendController`). */
@inject()
export default class MessagesController {
  constructor(
    private queries: MessageQueries,
    private conversations: ConversationBook
  ) {}

  async index(ctx: HttpContext) {
    return this.queries.list(input(ctx, 'listMessages').query)
  }

  async show({ params }: HttpContext) {
    return this.queries.show(idParam(params.id, 'Message'))
  }

  /** A conversation's messages, newest first; the conversations module says whether it exists (404). */
  async ofConversation(ctx: HttpContext) {
    const conversation = await this.conversations.find(idParam(ctx.params.id, 'Conversation'))
    return this.queries.list({ ...input(ctx, 'listConversationMessages').query, conversationId: conversation.id })
  }

  async retry({ params }: HttpContext) {
    return this.queries.retry(idParam(params.id, 'Message'))
  }

  async destroy({ params, response }: HttpContext) {
    await this.queries.delete(idParam(params.id, 'Message'))
    return response.noContent()
  }
}
