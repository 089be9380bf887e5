import { inject } from '@adonisjs/core'
import type { HttpContext } from '@adonisjs/core/http'
import { ApiError } from '#core/http/api_error'
import { SettingsStore } from '#core/settings/settings_store'
import type User from '#modules/auth/models/user'
import { UserStore } from '#modules/auth/stores/user_store'
import { UserService } from '#modules/auth/services/user_service'
import { ApiKeyService } from '#modules/auth/services/api_key_service'
import { SignInThrottle } from '#modules/auth/services/sign_in_throttle'
import { signedInUser } from '#modules/auth/services/gateway_access_guard'
import { LiveStreamSessions } from '#modules/auth/services/live_stream_sessions'
import { routeInputs } from '#core/contract/route_contract'
import type { AuthRoutes } from '#modules/auth/routes'
import type { CallerAnswer, SetupState, SignedIn } from '#modules/auth/schemas'

const input = routeInputs<AuthRoutes>()

/** First-account setup, sign-in and sign-out of the dashboard, and "who am I". */
@inject()
export default class SessionController {
  constructor(
    private users: UserService,
    private keys: ApiKeyService,
    private throttle: SignInThrottle,
    private settings: SettingsStore,
    private liveStreams: LiveStreamSessions,
    private accounts: UserStore
  ) {}

  async setUpState(): Promise<SetupState> {
    return { open: await this.users.setUpIsOpen() }
  }

  async setUp(ctx: HttpContext): Promise<SignedIn> {
    const user = await this.users.setUp(input(ctx, 'setUpFirstAccount').body)
    await this.#signIn(ctx, user)
    ctx.response.status(201)
    return { user: user.toResource() }
  }

  async signIn(ctx: HttpContext): Promise<SignedIn> {
    const { email, password } = input(ctx, 'signIn').body
    const attempt = await this.throttle.begin(email, ctx.request.ip())
    let user: User
    try {
      user = await this.accounts.verifyCredentials(email.toLowerCase(), password)
    } catch {
      throw new ApiError('INVALID_CREDENTIALS', 'Unknown e-mail address or wrong password')
    }
    await this.throttle.succeeded(attempt)
    await this.#signIn(ctx, user)
    return { user: user.toResource() }
  }

  async signOut(ctx: HttpContext) {
    if (ctx.auth && (await signedInUser(ctx))) {
      await ctx.auth.use('web').logout()
      // The session row stays (without its account): its live streams are closed here.
      this.liveStreams.endSession(ctx.session.sessionId)
    }
    return ctx.response.noContent()
  }

  async me(ctx: HttpContext): Promise<CallerAnswer> {
    const caller = ctx.caller!
    // Every caller may know the platform time zone: days, quotas' midnight and send windows follow it.
    const { timezone } = await this.settings.get('sending')
    if (caller.type === 'api_key') {
      return { type: 'api_key', scope: caller.scope, apiKey: await this.keys.describe(Number(caller.id)), timezone }
    }
    return { type: 'session', role: caller.role, user: (await this.users.find(Number(caller.id))).toResource(), timezone }
  }

  async #signIn(ctx: HttpContext, user: User) {
    await ctx.auth.use('web').login(user)
    // Lets the gateway end this account's sessions when the account is deleted.
    await ctx.session.tag(String(user.id))
  }
}
