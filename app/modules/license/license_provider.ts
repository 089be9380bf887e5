import type { ApplicationService } from '@adonisjs/core/types'
import { Clock } from '#core/time/clock'
import { Secrets } from '#core/secrets/secrets'
import { ActivityLog } from '#core/activity/activity_log'
import { JobRunner } from '#core/jobs/job_runner'
import { RouteRegistry } from '#core/contract/route_registry'
import { LicenseService } from '#modules/license/services/license_service'
import { LicenseStateStore } from '#modules/license/services/license_state_store'
import { DEFAULT_CHECK_TIMEOUT_MS, LicenseServerClient } from '#modules/license/services/license_server_client'
import { licenseEnvironment, type LicenseEnvironment } from '#modules/license/services/license_config'
import { licenseRoutes } from '#modules/license/routes'
import { registerVocabulary } from '#core/contract/module_vocabulary'
import { licensePermissions } from '#modules/license/permissions'
import { licenseEvents } from '#modules/license/events'
import { licenseActivity } from '#modules/license/activity'

/**
 * The license: its state and key, GET and PUT /license, the periodic check against the license
 * server (docs/license.md). The auth module's access guard reads the state and refuses writes
 * while the license is withdrawn (LICENSE_BLOCKED).
 */
export default class LicenseProvider {
  constructor(protected app: ApplicationService) {}

  register() {
    registerVocabulary({ permissions: licensePermissions, events: licenseEvents, activity: licenseActivity })
  }

  async start() {
    await setupLicense(this.app)
  }
}

/**
 * Wires the license into the app: the service, its routes, the periodic check, and the
 * persisted state. `environment` defaults to what start/env.ts read; tests pass their own.
 */
export async function setupLicense(app: ApplicationService, environment: LicenseEnvironment = licenseEnvironment()): Promise<void> {
  const { container } = app
  if (!container.hasBinding(LicenseService)) {
    container.singleton(LicenseService, async (resolver) => {
      const { gatewayVersion } = environment.config
      return new LicenseService({
        config: environment.config,
        store: new LicenseStateStore(await resolver.make('lucid.db')),
        client: new LicenseServerClient({ timeoutMs: DEFAULT_CHECK_TIMEOUT_MS, userAgent: `sms-gateway/${gatewayVersion}` }),
        secrets: await resolver.make(Secrets),
        clock: await resolver.make(Clock),
        emitter: await resolver.make('emitter'),
        activity: await resolver.make(ActivityLog),
        logger: await resolver.make('logger'),
      })
    })
  }

  const registry = await container.make(RouteRegistry)
  registry.add(licenseRoutes(registry))

  const license = await container.make(LicenseService)
  license.scheduleChecksOn(await container.make(JobRunner))

  // Only where the core provider migrated the database (server and tests): Ace commands, the
  // migration ones included, serve no request, so they never consult the gate.
  if (app.getEnvironment() === 'web' || app.getEnvironment() === 'test') {
    // A key replaced here asks for a check at once; the runner keeps that wake-up until it
    // starts with the HTTP server.
    await license.load(environment.key)
  }
}
