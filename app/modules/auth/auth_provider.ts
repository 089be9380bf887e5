import type { ApplicationService } from '@adonisjs/core/types'
import { AccessGuard } from '#core/http/access'
import { RouteRegistry } from '#core/contract/route_registry'
import { authRoutes } from '#modules/auth/routes'
import { dashboardSession } from '#modules/auth/middleware/dashboard_session'
import { ApiKeyCache } from '#modules/auth/services/api_key_cache'
import { MinuteWindows } from '#modules/auth/services/key_rate_limiter'
import { SignInAttempts } from '#modules/auth/services/sign_in_throttle'
import { GatewayAccessGuard } from '#modules/auth/services/gateway_access_guard'
import { LicenseService } from '#modules/license/public'
import { signedInDashboard } from '#modules/auth/middleware/signed_in_dashboard'
import { requireJsonBody } from '#core/http/body_guard_middleware'
import { registerVocabulary } from '#core/contract/module_vocabulary'
import { authActivity } from '#modules/auth/activity'
import { authErrors } from '#modules/auth/errors'
import { authPermissions } from '#modules/auth/permissions'
import { checkLiveStreamInput, explainRefusedSubscription } from '#core/http/live_stream_input'
import { LiveStreamSessions, type TransmitStreams } from '#modules/auth/services/live_stream_sessions'
import { SessionStore } from '#modules/auth/stores/session_store'
import { UserStore } from '#modules/auth/stores/user_store'

/**
 * The access module: dashboard accounts and sessions, API keys, scopes and roles, per-key rate
 * limits, and the license gate (the license module's state, read by the guard). It replaces the
 * core's "no credential exists" guard with the real one.
 */
export default class AuthProvider {
  constructor(protected app: ApplicationService) {}

  register() {
    registerVocabulary({ errors: authErrors, permissions: authPermissions, activity: authActivity })
    const { container } = this.app
    // State shared by all requests (the keys recognised, the minute windows, sign-in tries).
    container.singleton(ApiKeyCache, () => new ApiKeyCache())
    container.singleton(MinuteWindows, () => new MinuteWindows())
    container.singleton(SignInAttempts, () => new SignInAttempts())
    container.singleton(LiveStreamSessions, () => new LiveStreamSessions(new SessionStore(), new UserStore()))
    // The guard keeps nothing of a request, and building it (with its services) on every call
    // was a sizeable share of an API-key call (README, Benchmarks): it is built again only when
    // the license service the container holds changes (tests swap in their own license).
    let built: { license: LicenseService; guard: GatewayAccessGuard } | null = null
    container.bind(AccessGuard, async (resolver) => {
      const license = await resolver.make(LicenseService)
      if (built?.license !== license) built = { license, guard: await resolver.make(GatewayAccessGuard) }
      return built.guard
    })
  }

  async start() {
    const registry = await this.app.container.make(RouteRegistry)
    registry.useBeforeAccess(dashboardSession)
    registry.add(authRoutes(registry))
    // The guard refuses every write route while the license is withdrawn.
    registry.writeRouteErrors.add('LICENSE_BLOCKED')
    await this.#liveNoticeRoutes(registry)
  }

  async shutdown() {
    ;(await this.app.container.make(LiveStreamSessions)).stop()
  }

  /**
   * Transmit's stream and subscription routes (/__transmit/events, /__transmit/subscribe,
   * /__transmit/unsubscribe), open to signed-in dashboards only; any dashboard role may
   * receive the notices. Each stream is tied to the session that opened it, which alone may
   * change its channels, and closed when that session ends (a sweep only where a server runs: an Ace command serves no stream).
   */
  async #liveNoticeRoutes(registry: RouteRegistry) {
    const transmit = await this.app.container.make('transmit')
    const streams = await this.app.container.make(LiveStreamSessions)
    streams.attach(transmit as unknown as TransmitStreams, { sweep: this.app.getEnvironment() !== 'console' })
    registry.addLibraryRoutes((_router, bodyParser) =>
      transmit.registerRoutes((route) => route.use([explainRefusedSubscription, signedInDashboard, requireJsonBody, bodyParser, checkLiveStreamInput, streams.ownStreamOnly]))
    )
  }
}
