import logger from '@adonisjs/core/services/logger'
import type { TransactionClientContract } from '@adonisjs/lucid/types/database'
import type { DateTime } from 'luxon'
import { ApiError } from '#core/http/api_error'
import { GroupCommit } from '#core/group_commit/group_commit'
import { toIso } from '#core/database/utc_date_time'
import { shortenLinks } from '#modules/links/public'
import { IdempotentRequests, type IdempotencyClaim, type RecordedAnswer } from '#core/idempotency/idempotent_requests'
import { transaction } from '#core/database/transaction'
import {
  announceQueued,
  messageResource,
  queueMessages,
  type AcceptedMessages,
  type MessageCategory,
  type MessageChange,
  type OutboundSend,
} from '#modules/messages/public'

/** A send checked and normalised, waiting to be written. */
export interface PreparedSend {
  numbers: string[]
  body: string
  shortenLinks: boolean
  category: MessageCategory
  scheduledAt: DateTime | null
  deviceId: string | null
  simSlot: number | null
  createdAt: DateTime
  claim: IdempotencyClaim | null
  /** Only the confirmation of an opt-out: it goes to the number that has just opted out. */
  evenIfOptedOut?: boolean
}

/** Recipients written by one transaction at most (a batch always takes at least one send). */
const BATCH_RECIPIENTS = 5000

/**
 * Group commit for sends: sends that arrive together are written together, one transaction and
 * one multi-row statement per table. Each send still succeeds or fails on its own (an opted-out
 * number refuses only its own send). A container singleton.
 */
export class SendQueue {
  #queue: GroupCommit<PreparedSend, RecordedAnswer>

  constructor(private idempotency: IdempotentRequests) {
    this.#queue = new GroupCommit<PreparedSend, RecordedAnswer>({
      write: async (sends) => {
        const answers = await this.#write(sends)
        return { results: answers, afterAnswers: () => announceQueued(queuedChanges(answers)) }
      },
      weight: (send) => send.numbers.length,
      maxBatchWeight: BATCH_RECIPIENTS,
      onAfterAnswersError: (error) => logger.error({ err: error }, 'announcing queued messages failed'),
    })
  }

  submit(send: PreparedSend): Promise<RecordedAnswer> {
    return this.#queue.add(send)
  }

  /**
   * Writes a batch; answers one RecordedAnswer or refusal per send, in order. The opt-out check
   * rides on the conversation upsert of `queueMessages` (one statement fewer on the one
   * connection): when it finds an opted-out number the transaction is rolled back and written
   * again without those sends, which is rare and still correct.
   */
  async #write(sends: PreparedSend[]): Promise<Array<RecordedAnswer | ApiError>> {
    let blocked = new Set<string>()
    for (;;) {
      try {
        return await transaction((trx) => this.#writeExcept(sends, blocked, trx))
      } catch (error) {
        if (!(error instanceof OptedOutFound)) throw error
        blocked = new Set([...blocked, ...error.phones])
      }
    }
  }

  async #writeExcept(sends: PreparedSend[], blocked: Set<string>, trx: TransactionClientContract): Promise<Array<RecordedAnswer | ApiError>> {
    const answers: Array<RecordedAnswer | ApiError> = sends.map((send) => refusalFor(send, blocked) ?? { status: 202, body: null, replayed: false })
    const accepted = sends.filter((_, index) => !(answers[index] instanceof ApiError))

    const outbound: OutboundSend[] = []
    for (const send of accepted) {
      outbound.push({
        numbers: send.numbers,
        body: send.shortenLinks ? await shortenLinks(send.body, trx, send.createdAt) : send.body,
        category: send.category,
        deviceId: send.deviceId,
        simSlot: send.simSlot,
        scheduledAt: send.scheduledAt ? toIso(send.scheduledAt) : null,
        // Campaigns queue theirs through BulkSends; an API or dashboard send names none.
        campaignId: null,
        at: toIso(send.createdAt),
        evenIfOptedOut: send.evenIfOptedOut,
      })
    }
    // The conversations are touched before the insert: an opted-out number found there stops
    // the batch, rolled back with them.
    const queued = await queueMessages(trx, outbound, 'stop')
    if (queued.optedOut.length) throw new OptedOutFound(queued.optedOut)

    let next = 0
    for (const [index, send] of sends.entries()) {
      if (answers[index] instanceof ApiError) continue
      const body: AcceptedMessages = { accepted: queued.messages[next++]!.map(messageResource) }
      const answer: RecordedAnswer = { status: 202, body, replayed: false }
      if (send.claim) await this.idempotency.record(send.claim, answer.status, answer.body, trx)
      answers[index] = answer
    }
    return answers
  }
}

/** Thrown inside a batch's transaction to roll it back: these numbers opted out. */
class OptedOutFound extends Error {
  constructor(readonly phones: string[]) {
    super('opted-out numbers in the batch')
  }
}

/** The messages a batch queued, from its answers (the rows as written, not read again). */
function queuedChanges(answers: Array<RecordedAnswer | ApiError>): MessageChange[] {
  return answers.flatMap((answer) =>
    answer instanceof ApiError
      ? []
      : (answer.body as { accepted: Array<{ id: string; conversationId: string }> }).accepted.map((message) => ({
          id: Number(message.id),
          conversationId: Number(message.conversationId),
          direction: 'out' as const,
          status: 'queued' as const,
        }))
  )
}

function refusalFor(send: PreparedSend, blocked: Set<string>): ApiError | null {
  if (send.evenIfOptedOut) return null
  const positions = send.numbers.flatMap((number, position) => (blocked.has(number) ? [position] : []))
  if (!positions.length) return null
  return new ApiError('CONTACT_BLACKLISTED', 'A recipient opted out; nothing was queued', { field: 'to', position: positions[0], positions })
}
