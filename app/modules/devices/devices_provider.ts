import type { ApplicationService } from '@adonisjs/core/types'
import { RouteRegistry } from '#core/contract/route_registry'
import { JobRunner } from '#core/jobs/job_runner'
import { Clock } from '#core/time/clock'
import { deviceRoutes } from '#modules/devices/routes'
import { PairingFailures } from '#modules/devices/services/pairing_attempts'
import { PhoneChannels } from '#modules/devices/channels/phone_channels'
import { ReportInlet } from '#modules/devices/services/report_inlet'
import { PhonePresence } from '#modules/devices/services/phone_presence'
import { PhoneReportStore } from '#modules/devices/services/phone_report_store'
import { DeviceStore } from '#modules/devices/stores/device_store'
import { livenessJob } from '#modules/devices/jobs/liveness_job'
import { OrderBook } from '#modules/devices/services/order_book'
import { checkRoutingSettings } from '#modules/devices/services/routing_settings_check'
import { SettingsStore } from '#core/settings/settings_store'
import { registerVocabulary } from '#core/contract/module_vocabulary'
import { deviceActivity } from '#modules/devices/activity'
import { deviceErrors } from '#modules/devices/errors'
import { devicePermissions } from '#modules/devices/permissions'
import { deviceEvents } from '#modules/devices/events'
import { deviceSettings } from '#modules/devices/settings'
import { broadcastDeviceEvents } from '#modules/devices/listeners/live_devices'

/**
 * Paired phones: pairing and management, the seam every kind of phone plugs into (channels,
 * each from its own module), their SIMs and what each was handed (the fleet), liveness. What phones report about messages goes to the `OrderBook`
 * the messages module binds; this module never names a message.
 */
export default class DevicesProvider {
  constructor(protected app: ApplicationService) {}

  register() {
    registerVocabulary({ errors: deviceErrors, permissions: devicePermissions, events: deviceEvents, settings: deviceSettings, activity: deviceActivity })
    const { container } = this.app
    container.singleton(PairingFailures, () => new PairingFailures())
    container.singleton(PhonePresence, () => new PhonePresence())
    container.singleton(PhoneChannels, () => {
      const inlet = new ReportInlet(
        () => container.make(PhoneReportStore),
        async (deviceId) => (await container.make(OrderBook)).phoneConnected(deviceId)
      )
      return new PhoneChannels(inlet)
    })
  }

  async start() {
    const { container } = this.app
    const registry = await container.make(RouteRegistry)
    registry.add(deviceRoutes(registry))

    const runner = await container.make(JobRunner)
    // The kinds of phone register themselves from their own modules (agent, smsgate).
    const phones = await container.make(PhoneChannels)

    runner.register(
      livenessJob({
        phones: async () => phones,
        presence: () => container.make(PhonePresence),
        orderBook: () => container.make(OrderBook),
        devices: () => container.make(DeviceStore),
      })
    )

    ;(await container.make(SettingsStore)).addCheck('sending', checkRoutingSettings)

    const emitter = await container.make('emitter')
    const clock = await container.make(Clock)
    broadcastDeviceEvents(emitter, () => container.make('transmit'), async () => clock.now())
    emitter.on('devices:unpaired', async ({ deviceId }) => {
      // The phone's last frames (an `accepted` on its way) are stored first: an order it took
      // is not handed to another phone, and one it reported sent is not failed.
      await phones.disconnect(deviceId, 'unpaired')
      await phones.settled()
      await (await container.make(OrderBook)).phoneUnpaired(deviceId)
    })
  }

  /**
   * The phones' channels let go of their devices when the gateway starts stopping: the HTTP
   * server waits for every open connection, upgraded ones included, before it closes. Registered
   * once the server listens, so (hooks run in reverse) it runs before the server's own close.
   */
  async ready() {
    this.app.terminating(async () => (await this.app.container.make(PhoneChannels)).close())
  }
}
