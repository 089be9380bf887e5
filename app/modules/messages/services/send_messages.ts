import { inject } from '@adonisjs/core'
import { DateTime } from 'luxon'
import { Clock } from '#core/time/clock'
import { ApiError } from '#core/http/api_error'
import { PhoneNumbers } from '#core/phone_numbers/phone_numbers'
import { SettingsStore } from '#core/settings/settings_store'
import { dateTimeOf } from '#core/database/utc_date_time'
import type { MessageCategory } from '#modules/messages/models/message'
import type { IdempotencyClaim, RecordedAnswer } from '#core/idempotency/idempotent_requests'
import { SendQueue, type PreparedSend } from '#modules/messages/services/send_queue'
import { assertShortLinksPossible } from '#modules/links/public'
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

/**
 * POST /messages: checks the whole request (docs/sending.md, The request), then hands it to the
 * send queue, which writes it with other sends in one transaction. All or nothing: one bad or
 * opted-out number refuses the whole request and nothing is queued.
 */
@inject()
export class SendMessages {
  constructor(
    private clock: Clock,
    private phoneNumbers: PhoneNumbers,
    private settings: SettingsStore,
    private queue: SendQueue
  ) {}

  async send(request: SendRequest, claim: IdempotencyClaim | null): Promise<RecordedAnswer> {
    return this.queue.submit(await this.prepare(request, claim))
  }

  /** Queues a send already prepared (an automatic reply adjusts it first). */
  submit(send: PreparedSend): Promise<RecordedAnswer> {
    return this.queue.submit(send)
  }

  async prepare(request: SendRequest, claim: IdempotencyClaim | null): Promise<PreparedSend> {
    const body = this.#body(request.body)
    if (request.shortenLinks) assertShortLinksPossible()
    const numbers = await this.#recipients(request.to)
    return {
      numbers,
      body,
      shortenLinks: request.shortenLinks ?? false,
      category: request.category ?? 'transactional',
      scheduledAt: this.#scheduledAt(request.scheduledAt),
      deviceId: request.deviceId ?? null,
      simSlot: request.simSlot ?? null,
      createdAt: dateTimeOf(this.clock.now()),
      claim,
    }
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
    // Four-digit years only: stored dates compare as text, and "+275760-..." sorts before "2026-...".
    if (!parsed.isValid || !/^\d{4}-/.test(value) || parsed.toUTC().year > 9999) {
      throw ApiError.validation('scheduledAt', 'date', 'The scheduledAt field must be an ISO 8601 date with a four-digit year')
    }
    if (parsed.toMillis() <= this.clock.nowMs()) {
      throw new ApiError('SCHEDULED_AT_IN_PAST', 'scheduledAt must be in the future', { field: 'scheduledAt', now: this.clock.now().toISOString() })
    }
    return parsed.toUTC()
  }
}
