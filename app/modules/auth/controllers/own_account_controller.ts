import { inject } from '@adonisjs/core'
import type { HttpContext } from '@adonisjs/core/http'
import { OwnAccountService } from '#modules/auth/services/own_account_service'
import { LiveStreamSessions } from '#modules/auth/services/live_stream_sessions'
import { routeInputs } from '#core/contract/route_contract'
import type { AuthRoutes } from '#modules/auth/routes'

const input = routeInputs<AuthRoutes>()

/** The signed-in person's own account: password and other sessions (any role, never a key). */
@inject()
export default class OwnAccountController {
  constructor(
    private account: OwnAccountService,
    private liveStreams: LiveStreamSessions
  ) {}

  async changePassword(ctx: HttpContext) {
    const change = input(ctx, 'changeOwnPassword').body
    const userId = Number(ctx.caller!.id)
    const result = await this.account.changePassword(userId, change, this.#callerSession(ctx))
    await this.#renewSessionId(ctx, userId)
    return result
  }

  async endOtherSessions(ctx: HttpContext) {
    const userId = Number(ctx.caller!.id)
    const result = await this.account.endOtherSessions(userId, this.#callerSession(ctx))
    await this.#renewSessionId(ctx, userId)
    return result
  }

  #callerSession(ctx: HttpContext) {
    return { sessionId: ctx.session.sessionId, ip: ctx.request.ip(), by: ctx.caller! }
  }

  /**
   * "Every other session" includes a copy of this browser's cookie taken elsewhere: the session
   * moves to a new id (data and CSRF secret kept, the old row deleted when the session is
   * committed), tagged with its account so it can be ended later like any other. The live
   * streams opened under the old id close too, whoever holds them: this browser's own stream
   * connects again by itself with the new id, a copy's cannot.
   */
  async #renewSessionId(ctx: HttpContext, userId: number) {
    const previous = ctx.session.sessionId
    ctx.session.regenerate()
    await ctx.session.tag(String(userId))
    this.liveStreams.endSession(previous)
  }
}
