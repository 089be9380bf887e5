import { inject } from '@adonisjs/core'
import type { HttpContext } from '@adonisjs/core/http'
import { ApiError } from '#core/http/api_error'
import { idParam } from '#core/http/route_params'
import { SendMessages } from '#modules/messages/services/send_messages'
import { MessageQueries } from '#modules/messages/services/message_queries'
import { IdempotentRequests, hashRequest, type IdempotencyClaim } from '#core/idempotency/idempotent_requests'
import { routeInputs } from '#core/contract/route_contract'
import type { MessageRoutes } from '#modules/messages/routes'
import { ConversationBook } from '#modules/conversations/public'

const input = routeInputs<MessageRoutes>()

@inject()
export default class MessagesController {
  constructor(
    private sender: SendMessages,
    private idempotency: IdempotentRequests,
    private queries: MessageQueries,
    private conversations: ConversationBook
  ) {}

  async send(ctx: HttpContext) {
    const request = input(ctx, 'sendMessages').body
    const claim = this.#claim(ctx)
    // A replay answers before the send's own refusals, as a first request's answer stands.
    const answer = await this.idempotency.run(claim, () => this.sender.send(request.accepted(), claim))
    if (answer.replayed) ctx.response.header('Idempotency-Replayed', 'true')
    ctx.response.status(answer.status)
    return answer.body
  }

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

  /** Keys belong to their caller: two keys or accounts may use the same value independently. */
  #claim(ctx: HttpContext): IdempotencyClaim | null {
    const key = ctx.request.header('idempotency-key')
    if (key === undefined) return null
    if (key.length < 8 || key.length > 128) {
      throw new ApiError('VALIDATION_ERROR', 'The Idempotency-Key header must be 8 to 128 characters', [
        { field: 'Idempotency-Key', rule: 'length', message: 'The Idempotency-Key header must be 8 to 128 characters', min: 8, max: 128 },
      ])
    }
    const caller = ctx.caller!
    return { caller: `${caller.type}:${caller.id}`, key, requestHash: hashRequest(ctx.request.body()) }
  }
}
