import { inject } from '@adonisjs/core'
import emitter from '@adonisjs/core/services/emitter'
import { Clock } from '#core/time/clock'
import { ApiError } from '#core/http/api_error'
import { PhoneNumbers } from '#core/phone_numbers/phone_numbers'
import { SettingsStore } from '#core/settings/settings_store'
import type { PageOf } from '#core/contract/schemas'
import { messageResource, type MessageResource, type MessageRow, type messageSchema } from '#modules/messages/schemas'
import { MessageLedger } from '#modules/messages/services/message_ledger'
import { MessageStore, type ChosenMessage, type MessageFilters } from '#modules/messages/stores/message_store'
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
    const page = await this.messages.page(await this.resolved(filters))
    return { data: page.data.map(messageResource), nextCursor: page.nextCursor }
  }

  /** The filters as the store takes them: the number normalised, the search made a condition. */
  async resolved<F extends MessageFilters>(filters: F): Promise<F> {
    const phone = filters.phone && this.phoneNumbers.normalize(filters.phone, (await this.settings.get('reception')).localPrefix)
    const matching = filters.q ? await this.search.listCondition(filters.q) : undefined
    return { ...filters, phone, matching }
  }

  /** The Message resource of one message (404 if there is none). */
  async show(id: number): Promise<MessageResource> {
    return messageResource(await this.find(id))
  }

  async find(id: number): Promise<MessageRow> {
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
    const [retried] = await this.retryMessages([message])
    // Changed since it was read (a retry at the same moment): answered as it is now.
    if (!retried) throw new ApiError('MESSAGE_NOT_FAILED', 'Only a failed message can be retried; this one changed meanwhile')
    return this.show(id)
  }

  /**
   * Failed outgoing messages, as read, go back to the queue with their attempts restarted (one
   * or a bulk action's chunk); answers the ids retried. Any other status, or a message that
   * changed meanwhile, is left as it is.
   */
  async retryMessages(messages: ChosenMessage[]): Promise<number[]> {
    const failed = messages.filter((message) => message.status === 'failed').map((message) => message.id)
    return failed.length ? this.ledger.retryFailed(failed, this.clock.now()) : []
  }

  async delete(id: number): Promise<void> {
    await this.deleteMessages([await this.find(id)])
  }

  /**
   * Deletes messages as read (one or a bulk action's chunk); answers the ids deleted. A message
   * deleted meanwhile is left out of what follows.
   */
  async deleteMessages(messages: ChosenMessage[]): Promise<Set<number>> {
    const deleted = await this.messages.delete(messages.map((message) => message.id))
    const gone = messages.filter((message) => deleted.has(message.id))
    // Handed to a phone and not reported yet: the phone is told to drop it, if its kind can be.
    const withdrawn = new Map<number, number[]>()
    for (const message of gone) {
      if (message.direction === 'out' && message.device_id && message.ordered_at && (message.status === 'queued' || message.status === 'dispatched')) {
        const deviceId = Number(message.device_id)
        withdrawn.set(deviceId, [...(withdrawn.get(deviceId) ?? []), message.id])
      }
    }
    for (const [deviceId, ids] of withdrawn) this.fleet.withdraw(deviceId, ids)
    for (const message of gone) {
      await emitter.emit('message.deleted', { id: String(message.id), conversationId: String(message.conversation_id), at: this.clock.now() })
    }
    await announceChanges(
      gone.map((message) => ({ id: message.id, conversationId: message.conversation_id, direction: message.direction, status: 'deleted' as const, campaignId: message.campaign_id }))
    )
    return deleted
  }
}

