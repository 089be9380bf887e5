import type { ApplicationService } from '@adonisjs/core/types'
import { RouteRegistry } from '#core/contract/route_registry'
import { JobRunner } from '#core/jobs/job_runner'
import { messageRoutes } from '#modules/messages/routes'
import { groupRoutes } from '#modules/messages/group_routes'
import { importRoutes } from '#modules/messages/import_routes'
import { ContactImports, UNSTARTED_UPLOAD_KEPT_MS } from '#modules/messages/services/contact_imports'
import { CONTACT_IMPORT_JOB, contactImportJob } from '#modules/messages/jobs/contact_import_job'
import { LiveImports } from '#modules/messages/listeners/live_imports'
import { IdempotencyLocks, IdempotentRequests } from '#modules/messages/services/idempotency'
import { idempotencyExpiryJob } from '#modules/messages/jobs/idempotency_expiry_job'
import { SendQueue } from '#modules/messages/services/send_queue'
import { registerVocabulary } from '#core/contract/module_vocabulary'
import { messageErrors } from '#modules/messages/errors'
import { messagePermissions } from '#modules/messages/permissions'
import { messageEvents } from '#modules/messages/events'
import { messageSettings } from '#modules/messages/settings'
import { MessageLedger } from '#modules/messages/services/message_ledger'
import { BulkSends } from '#modules/messages/services/bulk_sends'
import { Clock } from '#core/time/clock'
import { broadcastMessageChanges } from '#modules/messages/listeners/live_messages'

/** Sending and reading messages, short links, contacts and conversations. */
export default class MessagesProvider {
  constructor(protected app: ApplicationService) {}

  register() {
    registerVocabulary({ errors: messageErrors, permissions: messagePermissions, events: messageEvents, settings: messageSettings })
    this.app.container.singleton(IdempotencyLocks, () => new IdempotencyLocks())
    this.app.container.singleton(SendQueue, () => new SendQueue(() => this.app.container.make(IdempotentRequests)))
    // Stateless; one instance spares a construction per phone frame and dispatch pass.
    this.app.container.singleton(MessageLedger, () => new MessageLedger())
    this.app.container.singleton(LiveImports, () => {
      const { container } = this.app
      return new LiveImports(
        () => container.make('transmit'),
        () => container.make(ContactImports),
        async () => (await container.make(Clock)).now()
      )
    })
    this.app.container.singleton(BulkSends, () => new BulkSends())
  }

  async start() {
    const registry = await this.app.container.make(RouteRegistry)
    registry.add(messageRoutes(registry))
    registry.add(groupRoutes(registry))
    registry.add(importRoutes(registry))
    const runner = await this.app.container.make(JobRunner)
    runner.register(idempotencyExpiryJob(() => this.app.container.make(IdempotentRequests)))
    const { container } = this.app
    const liveImports = await container.make(LiveImports)
    runner.register(
      contactImportJob(
        () => container.make(ContactImports),
        (id, final) => void liveImports.progressed(id, final),
        () => this.app.isTerminating
      )
    )
    const emitter = await container.make('emitter')
    // The runner is read again at each start: tests run imports on a runner of their own.
    const wakeImports = async (at?: Date) => {
      const current = await container.make(JobRunner)
      if (current.has(CONTACT_IMPORT_JOB)) current.wake(CONTACT_IMPORT_JOB, at)
    }
    emitter.on('contacts:import_started', () => wakeImports())
    // An upload is looked at again when it would be dropped.
    emitter.on('contacts:import_uploaded', async () => wakeImports(new Date((await container.make(Clock)).nowMs() + UNSTARTED_UPLOAD_KEPT_MS)))
    // The clock is read from the container at each batch: tests swap in a ManualClock.
    broadcastMessageChanges(await this.app.container.make('emitter'), () => this.app.container.make('transmit'), async () =>
      (await this.app.container.make(Clock)).now()
    )
  }
}
