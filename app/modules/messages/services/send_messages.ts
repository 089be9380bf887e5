import { inject } from '@adonisjs/core'
import db from '@adonisjs/lucid/services/db'
import emitter from '@adonisjs/core/services/emitter'
import type { TransactionClientContract } from '@adonisjs/lucid/types/database'
import { DateTime } from 'luxon'
import { Clock } from '#core/time/clock'
import { ApiError } from '#core/http/api_error'
import { PhoneNumbers } from '#core/phone_numbers/phone_numbers'
import { SettingsStore } from '#core/settings/settings_store'
import { dateTimeOf, toIso } from '#core/database/utc_date_time'
import Message, { type MessageCategory } from '#modules/messages/models/message'
import { countSegments } from '#modules/messages/services/segment_counter'
import { shortenLinks } from '#modules/messages/services/link_shortener'
import { IdempotentRequests, type IdempotencyClaim, type RecordedAnswer } from '#modules/messages/services/idempotency'
import { MAX_RECIPIENTS } from '#modules/messages/validators/send_validator'

export interface SendRequest {
  to?: unknown
  body?: unknown
  deviceId?: string
  simSlot?: number
  scheduledAt?: string
  category?: MessageCategory
  shortenLinks?: boolean
}

/** SQLite's limit on bound variables per statement is far above this; chunks keep statements small. */
const CHUNK = 200

/**
 * POST /messages: checks the whole request, then queues one message per number in one
 * transaction (spec, Send request). All or nothing: one bad or opted-out number refuses it all.
 */
@inject()
export class SendMessages {
  constructor(
    private clock: Clock,
    private phoneNumbers: PhoneNumbers,
    private settings: SettingsStore,
    private idempotency: IdempotentRequests
  ) {}

  async send(request: SendRequest, claim: IdempotencyClaim | null): Promise<RecordedAnswer> {
    const body = this.#body(request.body)
    const numbers = await this.#recipients(request.to)
    const scheduledAt = this.#scheduledAt(request.scheduledAt)
    const category = request.category ?? 'transactional'
    const now = dateTimeOf(this.clock.now())

    const answer = await db.transaction(async (trx) => {
      await this.#refuseOptedOut(numbers, trx)
      const text = request.shortenLinks ? await shortenLinks(body, trx, now) : body
      const conversationIds = await this.#conversationsFor(numbers, category, now, trx)
      const ids = await this.#insertMessages(trx, {
        numbers,
        conversationIds,
        text,
        category,
        now,
        scheduledAt,
        deviceId: request.deviceId ?? null,
        simSlot: request.simSlot ?? null,
      })
      const rows = await Message.query({ client: trx }).whereIn('id', ids)
      const byId = new Map(rows.map((row) => [row.id, row]))
      const result: RecordedAnswer = { status: 202, body: { accepted: ids.map((id) => byId.get(id)!.serialize()) }, replayed: false }
      if (claim) await this.idempotency.record(claim, result.status, result.body, trx)
      return result
    })
    await emitter.emit('messages:queued', { count: numbers.length })
    return answer
  }

  #body(value: unknown): string {
    if (value === undefined || value === null || (typeof value === 'string' && value.trim() === '')) {
      throw new ApiError('EMPTY_BODY', 'The message has no text: send a non-empty body')
    }
    if (typeof value !== 'string') throw ApiError.validation('body', 'string', 'The body field must be text')
    return value
  }

  async #recipients(to: unknown): Promise<string[]> {
    const list = typeof to === 'string' ? [to] : to
    if (!Array.isArray(list) || list.length === 0) {
      throw ApiError.validation('to', 'recipients', 'The to field must be one phone number or an array of 1 to 500')
    }
    if (list.length > MAX_RECIPIENTS) {
      throw new ApiError('VALIDATION_ERROR', `A send takes at most ${MAX_RECIPIENTS} numbers; use a campaign for more`, [
        { field: 'to', rule: 'maxLength', message: `At most ${MAX_RECIPIENTS} numbers per send; use a campaign for more`, max: MAX_RECIPIENTS },
      ])
    }
    const { localPrefix } = await this.settings.get('reception')
    const numbers: string[] = []
    const bad: number[] = []
    list.forEach((entry, position) => {
      try {
        numbers.push(this.phoneNumbers.normalize(entry, localPrefix, position))
      } catch {
        bad.push(position)
      }
    })
    if (bad.length) {
      // The number itself never appears in an error, only where it stands in `to`.
      throw new ApiError('INVALID_PHONE', `The number at position ${bad[0]} of to is not in E.164 format${localPrefix ? ' or local dialled form' : ''}`, {
        field: 'to',
        position: bad[0],
        positions: bad,
      })
    }
    return numbers
  }

  #scheduledAt(value: string | undefined): DateTime | null {
    if (value === undefined) return null
    const parsed = DateTime.fromISO(value, { zone: 'utc', setZone: true })
    if (!parsed.isValid) throw ApiError.validation('scheduledAt', 'date', 'The scheduledAt field must be an ISO 8601 date')
    if (parsed.toMillis() <= this.clock.nowMs()) {
      throw new ApiError('SCHEDULED_AT_IN_PAST', 'scheduledAt must be in the future', { field: 'scheduledAt', now: this.clock.now().toISOString() })
    }
    return parsed.toUTC()
  }

  async #refuseOptedOut(numbers: string[], trx: TransactionClientContract) {
    const unique = [...new Set(numbers)]
    const blocked = new Set<string>()
    for (let start = 0; start < unique.length; start += CHUNK) {
      const rows = await trx.from('contacts').whereIn('phone', unique.slice(start, start + CHUNK)).where('blacklisted', true).select('phone')
      for (const row of rows) blocked.add(row.phone)
    }
    if (!blocked.size) return
    const positions = numbers.flatMap((number, position) => (blocked.has(number) ? [position] : []))
    throw new ApiError('CONTACT_BLACKLISTED', 'A recipient opted out; nothing was queued', { field: 'to', position: positions[0], positions })
  }

  /** One conversation per number: created by the first message, touched by every later one. */
  async #conversationsFor(numbers: string[], category: MessageCategory, now: DateTime, trx: TransactionClientContract) {
    const unique = [...new Set(numbers)]
    const at = toIso(now)
    const ids = new Map<string, number>()
    for (let start = 0; start < unique.length; start += CHUNK) {
      const chunk = unique.slice(start, start + CHUNK)
      const placeholders = chunk.map(() => "(?, (SELECT id FROM contacts WHERE phone = ?), 'open', 0, 0, 0, ?, ?, ?)").join(', ')
      const rows = await trx.rawQuery(
        `INSERT INTO conversations (phone, contact_id, state, unread_count, pinned, archived, category, created_at, last_message_at)
         VALUES ${placeholders}
         ON CONFLICT (phone) DO UPDATE SET
           last_message_at = excluded.last_message_at,
           category = excluded.category,
           state = 'open',
           contact_id = COALESCE(conversations.contact_id, excluded.contact_id)
         RETURNING id, phone`,
        chunk.flatMap((phone): any[] => [phone, phone, category, at, at])
      )
      for (const row of rows) ids.set(row.phone, row.id)
    }
    return ids
  }

  async #insertMessages(
    trx: TransactionClientContract,
    input: {
      numbers: string[]
      conversationIds: Map<string, number>
      text: string
      category: MessageCategory
      now: DateTime
      scheduledAt: DateTime | null
      deviceId: string | null
      simSlot: number | null
    }
  ): Promise<number[]> {
    const { encoding, segments } = countSegments(input.text)
    const at = toIso(input.now)
    const scheduledAt = input.scheduledAt ? toIso(input.scheduledAt) : null
    const ids: number[] = []
    for (let start = 0; start < input.numbers.length; start += CHUNK) {
      const chunk = input.numbers.slice(start, start + CHUNK)
      // One statement per chunk (knex's returning on a multi-row SQLite insert gives only the
      // last id). RETURNING order is unspecified, but rows of one VALUES list get increasing
      // rowids in list order, so the sorted ids follow `to`.
      const rows = await trx.rawQuery(
        `INSERT INTO messages (conversation_id, direction, category, phone, body, encoding, segments, status, attempts,
           device_id, sim_slot, scheduled_at, created_at, updated_at)
         VALUES ${chunk.map(() => "(?, 'out', ?, ?, ?, ?, ?, 'queued', 0, ?, ?, ?, ?, ?)").join(', ')}
         RETURNING id`,
        chunk.flatMap((phone): any[] => [
          input.conversationIds.get(phone)!,
          input.category,
          phone,
          input.text,
          encoding,
          segments,
          input.deviceId,
          input.simSlot,
          scheduledAt,
          at,
          at,
        ])
      )
      ids.push(...rows.map((row: { id: number }) => row.id).sort((a: number, b: number) => a - b))
    }
    return ids
  }
}

declare module '@adonisjs/core/types' {
  interface EventsList {
    /** New messages wait for a phone: the dispatcher wakes. */
    'messages:queued': { count: number }
  }
}
