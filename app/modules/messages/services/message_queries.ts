import { inject } from '@adonisjs/core'
import emitter from '@adonisjs/core/services/emitter'
import { Clock } from '#core/time/clock'
import { ApiError } from '#core/http/api_error'
import { PhoneNumbers } from '#core/phone_numbers/phone_numbers'
import { SettingsStore } from '#core/settings/settings_store'
import type { PageOf } from '#core/contract/schemas'
import type { MessageResource, messageSchema } from '#modules/messages/schemas'
import { MessageLedger } from '#modules/messages/services/message_ledger'
import type Message from '#modules/messages/models/message'
import { MessageStore, type MessageFilters } from '#modules/messages/stores/message_store'
import { announceChanges } from '#modules/messages/services/message_changes'
import { PhoneFleet } from '#modules/devices/public'
import { MessageSearch } from '#modules/messages/services/message_search'

/** Reading, retrying and deleting messages. */
@inject()
export class MessageQueries {
  constructor(
    private clock: Clock,
    private phoneNumbers: PhoneNumbers,
    private settings: SettingsStore,
    private ledger: MessageLedger,
    private fleet: PhoneFleet,
    private messages: MessageStore,
    private search: MessageSearch
  ) {}

  /** Newest first, keyset pages: as fast on the last page as on the first. */
  async list(filters: MessageFilters): Promise<PageOf<typeof messageSchema>> {
    const phone = filters.phone && this.phoneNumbers.normalize(filters.phone, (await this.settings.get('reception')).localPrefix)
    const matching = filters.q ? await this.search.listCondition(filters.q) : undefined
    const page = await this.messages.page({ ...filters, phone, matching })
    return { data: page.data.map((message) => message.toResource()), nextCursor: page.nextCursor }
  }

  /** The Message resource of one message (404 if there is none). */
  async show(id: number): Promise<MessageResource> {
    return (await this.find(id)).toResource()
  }

  async find(id: number): Promise<Message> {
    const message = await this.messages.find(id)
    if (!message) throw ApiError.notFound('Message')
    return message
  }

  /** A failed message goes back to the queue with its attempts restarted. */
  async retry(id: number): Promise<MessageResource> {
    const message = await this.find(id)
    if (message.status !== 'failed') {
      throw new ApiError('MESSAGE_NOT_FAILED', `Only a failed message can be retried; this one is ${message.status}`, {
        status: message.status,
      })
    }
    const [retried] = await this.ledger.retryFailed([message.id], this.clock.now())
    // Changed since it was read (a retry at the same moment): answered as it is now.
    if (!retried) throw new ApiError('MESSAGE_NOT_FAILED', 'Only a failed message can be retried; this one changed meanwhile')
    return (await this.messages.reload(message)).toResource()
  }

  async delete(id: number): Promise<void> {
    const message = await this.find(id)
    await this.messages.delete(message.id)
    // Handed to a phone and not reported yet: the phone is told to drop it, if its kind can be.
    if (message.direction === 'out' && message.deviceId && message.orderedAt && (message.status === 'queued' || message.status === 'dispatched')) {
      this.fleet.withdraw(Number(message.deviceId), [message.id])
    }
    await emitter.emit('message.deleted', {
      id: String(message.id),
      conversationId: String(message.conversationId),
      at: this.clock.now(),
    })
    await announceChanges([{ id: message.id, conversationId: message.conversationId, direction: message.direction, status: 'deleted', campaignId: message.campaignId }])
  }
}

