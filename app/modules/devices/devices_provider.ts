import type { ApplicationService } from '@adonisjs/core/types'
import { RouteRegistry } from '#core/contract/route_registry'
import { JobRunner } from '#core/jobs/job_runner'
import { Clock } from '#core/time/clock'
import { Secrets } from '#core/secrets/secrets'
import { deviceRoutes } from '#modules/devices/routes'
import { PairingFailures } from '#modules/devices/services/pairing_attempts'
import { PhoneChannels } from '#modules/devices/channels/phone_channels'
import { AgentSocketChannel } from '#modules/devices/channels/agent_socket/agent_socket_channel'
import { ReportInlet } from '#modules/devices/services/report_inlet'
import { PhonePresence } from '#modules/devices/services/phone_presence'
import { PhoneReportStore } from '#modules/devices/services/phone_report_store'
import { Dispatcher, RoutingCursor } from '#modules/devices/services/dispatcher'
import { DISPATCH_JOB, dispatchJob, livenessJob, quotaDayJob } from '#modules/devices/jobs/device_jobs'
import { ReportQueue } from '#modules/devices/services/report_queue'
import { checkRoutingSettings } from '#modules/devices/services/routing_settings_check'
import { SettingsStore } from '#core/settings/settings_store'
import { registerVocabulary } from '#core/contract/module_vocabulary'
import { deviceActivity } from '#modules/devices/activity'
import { deviceErrors } from '#modules/devices/errors'
import { devicePermissions } from '#modules/devices/permissions'
import { deviceEvents } from '#modules/devices/events'
import { deviceSettings } from '#modules/devices/settings'
import { MessageLedger } from '#modules/messages/public'
import { broadcastDeviceEvents } from '#modules/devices/listeners/live_devices'

/** Paired phones: pairing and management, the kinds of phone (channels), the dispatcher, liveness. */
export default class DevicesProvider {
  constructor(protected app: ApplicationService) {}

  register() {
    registerVocabulary({ errors: deviceErrors, permissions: devicePermissions, events: deviceEvents, settings: deviceSettings, activity: deviceActivity })
    const { container } = this.app
    container.singleton(PairingFailures, () => new PairingFailures())
    container.singleton(PhonePresence, () => new PhonePresence())
    container.singleton(RoutingCursor, () => new RoutingCursor())
    container.singleton(ReportQueue, (resolver) => new ReportQueue(() => resolver.make(MessageLedger), () => resolver.make(SettingsStore)))
    container.singleton(PhoneChannels, () => {
      const inlet = new ReportInlet(
        () => container.make(PhoneReportStore),
        async (deviceId) => {
          await (await container.make(Dispatcher)).resendOrders(deviceId)
          await this.#wakeDispatcher()
        }
      )
      return new PhoneChannels(inlet)
    })
    container.singleton(AgentSocketChannel, async (resolver) => new AgentSocketChannel(await resolver.make(Secrets), await resolver.make('logger')))
  }

  async start() {
    const { container } = this.app
    const registry = await container.make(RouteRegistry)
    registry.add(deviceRoutes(registry))

    const runner = await container.make(JobRunner)
    // The kinds of phone the gateway talks to: a new kind is one more registration here.
    const phones = await container.make(PhoneChannels)
    phones.register(await container.make(AgentSocketChannel))

    const dispatcher = () => container.make(Dispatcher)
    runner.register(dispatchJob(dispatcher))
    runner.register(livenessJob({ phones: async () => phones, presence: () => container.make(PhonePresence), dispatcher }))
    runner.register(quotaDayJob({ dispatcher, settings: () => container.make(SettingsStore) }))

    ;(await container.make(SettingsStore)).addCheck('sending', checkRoutingSettings)

    const emitter = await container.make('emitter')
    const clock = await container.make(Clock)
    broadcastDeviceEvents(emitter, () => container.make('transmit'), async () => clock.now())
    emitter.on('messages:queued', () => this.#wakeDispatcher())
    emitter.on('devices:available', () => this.#wakeDispatcher())
    emitter.on('devices:retry_due', ({ at }) => this.#wakeDispatcher(at))
    emitter.on('devices:unpaired', async ({ deviceId }) => {
      // The phone's last frames (an `accepted` on its way) are stored first: an order it took
      // is not handed to another phone, and one it reported sent is not failed.
      await phones.disconnect(deviceId, 'unpaired')
      await phones.settled()
      await (await dispatcher()).requeueOrdersOf(deviceId)
      await (await dispatcher()).failTakenOrdersOf(deviceId)
      // What waited for this phone alone (never ordered: it was disabled, offline or at its
      // quota) fails now, and what it was ordered goes to another phone.
      await this.#wakeDispatcher()
    })
    // A raised quota frees the messages waiting for one; new routing settings apply at once.
    emitter.on('devices:quota_changed', async () => {
      if (await (await dispatcher()).releaseQuotaWaits()) await this.#wakeDispatcher()
    })
    emitter.on('settings:changed', async ({ sections }) => {
      if (!sections.includes('sending')) return
      await (await dispatcher()).releaseHolds()
      await this.#wakeDispatcher()
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

  /**
   * Jobs run with the HTTP server only; in Ace commands nothing is dispatched. The runner is
   * resolved each time so a test can put its own (on a ManualClock) in the container.
   */
  async #wakeDispatcher(at?: Date) {
    const runner = await this.app.container.make(JobRunner)
    if (runner.started && runner.has(DISPATCH_JOB)) runner.wake(DISPATCH_JOB, at)
  }
}
