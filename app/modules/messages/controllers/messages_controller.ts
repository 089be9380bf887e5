import { inject } from '@adonisjs/core'
import type { HttpContext } from '@adonisjs/core/http'
import { ApiError } from '#core/http/api_error'
import { idParam } from '#core/http/route_params'
import { SendMessages } from '#modules/messages/services/send_messages'
import { MessageQueries } from '#modules/messages/services/message_queries'
import { IdempotentRequests, hashRequest, type IdempotencyClaim } from '#core/idempotency/idempotent_requests'
import { sendValidator } from '#modules/messages/validators/send_validator'
import { listMessagesValidator } from '#modules/messages/validators/message_validators'

/**
 * Each action asks for the services it uses (method injection): a send, the hottest path of
 * the gateway, builds no query service it does not need.
 */
export default class MessagesController {
  @inject()
  async send(ctx: HttpContext, sender: SendMessages, idempotency: IdempotentRequests) {
    const input = await ctx.request.validateUsing(sendValidator, { data: ctx.request.body() })
    const claim = this.#claim(ctx)
    const answer = await idempotency.run(claim, () => sender.send(input, claim))
    if (answer.replayed) ctx.response.header('Idempotency-Replayed', 'true')
    ctx.response.status(answer.status)
    return answer.body
  }

  @inject()
  async index({ request }: HttpContext, queries: MessageQueries) {
    return queries.list(await request.validateUsing(listMessagesValidator, { data: request.qs() }))
  }

  @inject()
  async show({ params }: HttpContext, queries: MessageQueries) {
    return queries.find(idParam(params.id, 'Message'))
  }

  @inject()
  async retry({ params }: HttpContext, queries: MessageQueries) {
    return queries.retry(idParam(params.id, 'Message'))
  }

  @inject()
  async destroy({ params, response }: HttpContext, queries: MessageQueries) {
    await queries.delete(idParam(params.id, 'Message'))
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
