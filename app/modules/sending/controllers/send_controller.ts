import { inject } from '@adonisjs/core'
import type { HttpContext } from '@adonisjs/core/http'
import { ApiError } from '#core/http/api_error'
import { SendMessages } from '#modules/sending/services/send_messages'
import { IdempotentRequests, hashRequest, type IdempotencyClaim } from '#core/idempotency/idempotent_requests'
import { routeInputs } from '#core/contract/route_contract'
import type { SendingRoutes } from '#modules/sending/routes'

const input = routeInputs<SendingRoutes>()

@inject()
export default class SendController {
  constructor(
    private sender: SendMessages,
    private idempotency: IdempotentRequests
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
