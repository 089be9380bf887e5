import type { ApplicationService } from '@adonisjs/core/types'
import type { Container } from '@adonisjs/core/container'
import { Emitter } from '@adonisjs/core/events'
import { Logger } from '@adonisjs/core/logger'
import { Clock } from '#core/time/clock'
import { Secrets } from '#core/secrets/secrets'
import { ActivityLog } from '#core/activity/activity_log'
import { JobRunner } from '#core/jobs/job_runner'
import { RouteRegistry } from '#core/contract/route_registry'
import { LicenseService } from '#modules/license/services/license_service'
import { LicenseStateStore } from '#modules/license/stores/license_state_store'
import { LicenseServerClient } from '#modules/license/services/license_server_client'
import { LicenseConfig, licenseEnvironment } from '#modules/license/services/license_config'
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
    bindLicense(this.app.container)
  }

  async start() {
    await startLicense(this.app)
  }
}

/**
 * Binds the license's configuration (read from start/env.ts when first needed, so a malformed
 * value stops the start) and its service, a singleton: the state lives in it. Tests give their
 * own configuration.
 */
export function bindLicense(container: Container<any>, config: () => LicenseConfig = licenseEnvironment): void {
  container.singleton(LicenseConfig, config)
  container.singleton(
    LicenseService,
    async (resolver) =>
      new LicenseService(
        await resolver.make(LicenseConfig),
        await resolver.make(LicenseStateStore),
        await resolver.make(LicenseServerClient),
        await resolver.make(Secrets),
        await resolver.make(Clock),
        await resolver.make(Emitter),
        await resolver.make(ActivityLog),
        await resolver.make(Logger)
      )
  )
}

/** Adds the routes, schedules the periodic check and loads the persisted state. */
export async function startLicense(app: ApplicationService): Promise<void> {
  const { container } = app
  const registry = await container.make(RouteRegistry)
  registry.add(licenseRoutes(registry))

  const license = await container.make(LicenseService)
  license.scheduleChecksOn(await container.make(JobRunner))

  // Only where the core provider migrated the database (server and tests): Ace commands, the
  // migration ones included, serve no request, so they never consult the gate.
  if (app.getEnvironment() === 'web' || app.getEnvironment() === 'test') {
    // A key replaced here asks for a check at once; the runner keeps that wake-up until it
    // starts with the HTTP server.
    await license.load((await container.make(LicenseConfig)).key)
  }
}
