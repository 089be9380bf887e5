import { inject } from '@adonisjs/core'
import { ApiError } from '#core/http/api_error'
import { IdempotentRequests, hashRequest } from '#core/idempotency/idempotent_requests'
import { SendMessages } from '#modules/sending/public'

export interface AutomaticReply {
  phone: string
  body: string
  deviceId: string | null
  simSlot: number | null
  /** Unique per reply: the same key twice queues one message (a run resumed after a crash). */
  key: string
  /** The confirmation of an opt-out goes to a number that has just opted out. */
  evenIfOptedOut?: boolean
}

export type ReplyOutcome = { messageId: number } | { refused: string; reason: string }

/** Replies are idempotent under this caller, apart from any API key's own keys. */
const REPLY_CALLER = 'automation'

/**
 * A reply sent without a person at the dashboard (an automation rule): queued once per key
 * through the send queue. Assigning the conversation is the conversations module's
 * (`ConversationBook.assign`).
 */
@inject()
export class AutomaticReplies {
  constructor(
    private sender: SendMessages,
    private idempotency: IdempotentRequests
  ) {}

  /** Queues an automatic reply (category conversation); a refusal is answered, never thrown. */
  async reply(reply: AutomaticReply): Promise<ReplyOutcome> {
    const request = {
      to: reply.phone,
      body: reply.body,
      category: 'conversation' as const,
      ...(reply.deviceId ? { deviceId: reply.deviceId } : {}),
      ...(reply.simSlot !== null ? { simSlot: reply.simSlot } : {}),
    }
    const claim = { caller: REPLY_CALLER, key: reply.key, requestHash: hashRequest(request) }
    try {
      const answer = await this.idempotency.run(claim, async () => {
        const prepared = this.sender.prepare(await this.sender.check(request), claim)
        return this.sender.submit({ ...prepared, evenIfOptedOut: reply.evenIfOptedOut ?? false })
      })
      const accepted = (answer.body as { accepted: Array<{ id: string }> }).accepted
      return { messageId: Number(accepted[0].id) }
    } catch (error) {
      if (error instanceof ApiError) return { refused: error.code, reason: error.message }
      throw error
    }
  }
}
