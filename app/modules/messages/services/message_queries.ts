import { inject } from '@adonisjs/core'
import db from '@adonisjs/lucid/services/db'
import emitter from '@adonisjs/core/services/emitter'
import { Clock } from '#core/time/clock'
import { ApiError } from '#core/http/api_error'
import { PhoneNumbers } from '#core/phone_numbers/phone_numbers'
import { SettingsStore } from '#core/settings/settings_store'
import { storedDateBound, toIso } from '#core/database/utc_date_time'
import { keysetPage, type PageRequest } from '#core/pagination/keyset_page'
import type { PageOf } from '#core/contract/schemas'
import type { MessageResource, messageSchema } from '#modules/messages/schemas'
import { MessageLedger } from '#modules/messages/services/message_ledger'
import Message, { type MessageCategory, type MessageStatus } from '#modules/messages/models/message'
import { announceChanges } from '#modules/messages/services/message_changes'
import { PhoneFleet } from '#modules/devices/public'

export interface MessageFilters extends PageRequest {
  direction?: 'in' | 'out'
  status?: MessageStatus
  category?: MessageCategory
  phone?: string
  conversationId?: string | number
  deviceId?: string
  campaignId?: string
  since?: string
  until?: string
}

/** Reading, retrying and deleting messages. */
@inject()
export class MessageQueries {
  constructor(
    private clock: Clock,
    private phoneNumbers: PhoneNumbers,
    private settings: SettingsStore,
    private ledger: MessageLedger,
    private fleet: PhoneFleet
  ) {}

  /** Newest first, keyset pages: as fast on the last page as on the first. */
  async list(filters: MessageFilters): Promise<PageOf<typeof messageSchema>> {
    const query = Message.query()
    if (filters.direction) query.where('direction', filters.direction)
    if (filters.status) query.where('status', filters.status)
    if (filters.category) query.where('category', filters.category)
    if (filters.conversationId !== undefined) query.where('conversation_id', Number(filters.conversationId))
    if (filters.deviceId !== undefined) query.where('device_id', filters.deviceId)
    if (filters.campaignId !== undefined) query.where('campaign_id', Number(filters.campaignId))
    if (filters.phone) {
      const { localPrefix } = await this.settings.get('reception')
      query.where('phone', this.phoneNumbers.normalize(filters.phone, localPrefix))
    }
    if (filters.since) query.where('created_at', '>=', storedDateBound(filters.since, 'since'))
    if (filters.until) query.where('created_at', '<', storedDateBound(filters.until, 'until'))
    const page = await keysetPage(query, filters, 'created_at', (row) => toIso(row.createdAt))
    return { data: page.data.map((message) => message.toResource()), nextCursor: page.nextCursor }
  }

  /** The Message resource of one message (404 if there is none). */
  async show(id: number): Promise<MessageResource> {
    return (await this.find(id)).toResource()
  }

  async find(id: number): Promise<Message> {
    const message = await Message.find(id)
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
    await message.refresh()
    return message.toResource()
  }

  async delete(id: number): Promise<void> {
    const message = await this.find(id)
    await db.from('messages').where('id', message.id).delete()
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

