import type { ApplicationService } from '@adonisjs/core/types'
import { RouteRegistry } from '#core/contract/route_registry'
import { JobRunner } from '#core/jobs/job_runner'
import { messageRoutes } from '#modules/messages/routes'
import { registerVocabulary } from '#core/contract/module_vocabulary'
import { messageErrors } from '#modules/messages/errors'
import { messagePermissions } from '#modules/messages/permissions'
import { messageEvents } from '#modules/messages/events'
import { messageSettings } from '#modules/messages/settings'
import { MessageLedger } from '#modules/messages/services/message_ledger'
import { MessageStateStore } from '#modules/messages/stores/message_state_store'
import { MessageStore } from '#modules/messages/stores/message_store'
import { Clock } from '#core/time/clock'
import { SettingsStore } from '#core/settings/settings_store'
import { OrderBook, PhoneFleet } from '#modules/devices/public'
import { Dispatcher, RoutingCursor } from '#modules/messages/dispatch/dispatcher'
import { OrderReportQueue } from '#modules/messages/dispatch/order_report_queue'
import { MessageOrderBook } from '#modules/messages/dispatch/message_order_book'
import { DISPATCH_JOB, dispatchJob, quotaDayJob } from '#modules/messages/dispatch/dispatch_jobs'
import { broadcastMessageChanges } from '#modules/messages/listeners/live_messages'
import { ConversationTexts } from '#modules/conversations/public'
import { MessageSearch } from '#modules/messages/services/message_search'

/**
 * The messages, from their insert to the phone's last report, and reading them (docs/modules.md,
 * How a message goes through the house): the dispatcher and the `OrderBook` the phones report
 * to, bound here for the devices module.
 */
export default class MessagesProvider {
  constructor(protected app: ApplicationService) {}

  register() {
    registerVocabulary({ errors: messageErrors, permissions: messagePermissions, events: messageEvents, settings: messageSettings })
    // Stateless; one instance spares a construction per phone frame and dispatch pass.
    this.app.container.singleton(MessageLedger, async (resolver) => new MessageLedger(new MessageStateStore(), new MessageStore(), await resolver.make(PhoneFleet)))
    const { container } = this.app
    container.bind(ConversationTexts, (resolver) => resolver.make(MessageSearch))
    container.singleton(RoutingCursor, () => new RoutingCursor())
    container.singleton(OrderReportQueue, async (resolver) => new OrderReportQueue(await resolver.make(MessageLedger), await resolver.make(PhoneFleet)))
    container.singleton(
      OrderBook,
      async (resolver) =>
        new MessageOrderBook(await resolver.make(OrderReportQueue), await resolver.make(MessageLedger), await resolver.make(Dispatcher), () =>
          this.#wakeDispatcher()
        )
    )
  }

  async start() {
    const registry = await this.app.container.make(RouteRegistry)
    registry.add(messageRoutes(registry))
    const runner = await this.app.container.make(JobRunner)
    for (const job of dispatchJobs(this.app.container)) runner.register(job)
    const clock = await this.app.container.make(Clock)
    const emitter = await this.app.container.make('emitter')
    broadcastMessageChanges(emitter, () => this.app.container.make('transmit'), async () => clock.now())

    const ledger = await this.app.container.make(MessageLedger)
    emitter.on('messages:queued', () => this.#wakeDispatcher())
    emitter.on('messages:retry_due', ({ at }) => this.#wakeDispatcher(at))
    emitter.on('devices:available', () => this.#wakeDispatcher())
    // A raised quota frees the messages waiting for one; new routing settings apply at once.
    emitter.on('devices:quota_changed', async () => {
      if (await ledger.releaseQuotaWaits(clock.now())) await this.#wakeDispatcher()
    })
    emitter.on('settings:changed', async ({ sections }) => {
      if (!sections.includes('sending')) return
      await ledger.releaseHolds(clock.now())
      await this.#wakeDispatcher()
    })
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

/** The dispatcher's jobs, on whichever runner is given them (a test's own, too). */
export function dispatchJobs(container: ApplicationService['container']) {
  return [
    dispatchJob(() => container.make(Dispatcher)),
    quotaDayJob({ ledger: () => container.make(MessageLedger), settings: () => container.make(SettingsStore) }),
  ]
}
