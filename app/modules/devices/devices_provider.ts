import type { ApplicationService } from '@adonisjs/core/types'
import { RouteRegistry } from '#core/contract/route_registry'
import { deviceRoutes } from '#modules/devices/routes'
import { PairingFailures } from '#modules/devices/services/pairing_attempts'

/** Paired phones: pairing, management (and, to come, the phone socket and the dispatcher). */
export default class DevicesProvider {
  constructor(protected app: ApplicationService) {}

  register() {
    this.app.container.singleton(PairingFailures, () => new PairingFailures())
  }

  async start() {
    const registry = await this.app.container.make(RouteRegistry)
    registry.add(deviceRoutes(registry))
  }
}
