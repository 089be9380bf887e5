import { inject } from '@adonisjs/core'
import { errors as vineErrors } from '@vinejs/vine'
import { Clock } from '#core/time/clock'
import { ApiError } from '#core/http/api_error'
import { SettingsStore } from '#core/settings/settings_store'
import { dateTimeOf } from '#core/database/utc_date_time'
import type { MessageCategory } from '#modules/messages/public'
import type { IdempotencyClaim, RecordedAnswer } from '#core/idempotency/idempotent_requests'
import { SendQueue, type PreparedSend } from '#modules/sending/services/send_queue'
import { sendValidator, type SendInput } from '#modules/sending/validators/send_validator'

/** A send asked for by the gateway itself (an automatic reply, a backup alert), not yet checked. */
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
 * POST /messages: takes a request its rules accepted (send_validator.ts; docs/sending.md, The
 * request) and hands it to the send queue, which writes it with other sends in one transaction.
 * All or nothing: one bad or opted-out number refuses the whole request and nothing is queued.
 */
@inject()
export class SendMessages {
  constructor(
    private clock: Clock,
    private settings: SettingsStore,
    private queue: SendQueue
  ) {}

  async send(input: SendInput, claim: IdempotencyClaim | null): Promise<RecordedAnswer> {
    return this.queue.submit(this.prepare(input, claim))
  }

  /** Queues a send already prepared (an automatic reply adjusts it first). */
  submit(send: PreparedSend): Promise<RecordedAnswer> {
    return this.queue.submit(send)
  }

  /**
   * Checks a send the gateway asks for itself with the rules of POST /messages (the route has
   * them applied by the router): a refusal is the same ApiError the API answers.
   */
  async check(request: SendRequest): Promise<SendInput> {
    const meta = { localPrefix: (await this.settings.get('reception')).localPrefix, now: this.clock.now() }
    try {
      return (await sendValidator.validate(request, { meta })).accepted()
    } catch (error) {
      if (!(error instanceof vineErrors.E_VALIDATION_ERROR)) throw error
      const details = (error.messages as Array<{ field: string; rule: string; message: string }>).map(({ field, rule, message }) => ({ field, rule, message }))
      throw new ApiError('VALIDATION_ERROR', details[0]?.message ?? 'The request is not valid', details)
    }
  }

  prepare(input: SendInput, claim: IdempotencyClaim | null): PreparedSend {
    return {
      numbers: input.to,
      body: input.body,
      shortenLinks: input.shortenLinks ?? false,
      category: input.category ?? 'transactional',
      scheduledAt: input.scheduledAt ?? null,
      deviceId: input.deviceId ?? null,
      simSlot: input.simSlot ?? null,
      createdAt: dateTimeOf(this.clock.now()),
      claim,
    }
  }
}
