import db from '@adonisjs/lucid/services/db'
import emitter from '@adonisjs/core/services/emitter'
import type { TransactionClientContract } from '@adonisjs/lucid/types/database'
import type { DateTime } from 'luxon'
import { ApiError } from '#core/http/api_error'
import { toIso } from '#core/database/utc_date_time'
import Message, { type MessageCategory } from '#modules/messages/models/message'
import { countSegments } from '#modules/messages/services/segment_counter'
import { shortenLinks } from '#modules/messages/services/link_shortener'
import { IdempotentRequests, type IdempotencyClaim, type RecordedAnswer } from '#modules/messages/services/idempotency'

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
}

interface Pending {
  send: PreparedSend
  resolve: (answer: RecordedAnswer) => void
  reject: (error: unknown) => void
}

/** Rows per multi-row statement: far below SQLite's bound-variable limit. */
const CHUNK = 200
/** Recipients written by one transaction at most (a batch always takes at least one send). */
const BATCH_RECIPIENTS = 5000

/**
 * Group commit for sends. SQLite writes through one connection, one statement at a time, so a
 * transaction per request caps sends at a few hundred per second. Sends that arrive together
 * are written together instead: one transaction, one multi-row statement per table. Each send
 * still succeeds or fails on its own (an opted-out number refuses only its own send); only a
 * database fault fails the whole batch. A container singleton.
 */
export class SendQueue {
  #waiting: Pending[] = []
  #writing = false

  constructor(private idempotency: () => Promise<IdempotentRequests>) {}

  submit(send: PreparedSend): Promise<RecordedAnswer> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ send, resolve, reject })
      if (!this.#writing) {
        this.#writing = true
        // Let the requests that arrive in the same turn of the event loop join this batch.
        setImmediate(() => void this.#drain())
      }
    })
  }

  async #drain() {
    while (this.#waiting.length) {
      const batch = this.#takeBatch()
      let queued = 0
      try {
        const answers = await this.#write(batch.map((pending) => pending.send))
        batch.forEach((pending, index) => {
          const answer = answers[index]
          if (answer instanceof Error) return pending.reject(answer)
          queued += pending.send.numbers.length
          pending.resolve(answer)
        })
      } catch (error) {
        // Whatever failed the batch must fail only the send that caused it: write them one
        // by one, each in its own transaction.
        if (batch.length === 1) batch[0].reject(error)
        else queued += await this.#writeOneByOne(batch)
      }
      if (queued) await emitter.emit('messages:queued', { count: queued })
    }
    this.#writing = false
  }

  async #writeOneByOne(batch: Pending[]): Promise<number> {
    let queued = 0
    for (const pending of batch) {
      try {
        const [answer] = await this.#write([pending.send])
        if (answer instanceof Error) {
          pending.reject(answer)
        } else {
          queued += pending.send.numbers.length
          pending.resolve(answer)
        }
      } catch (error) {
        pending.reject(error)
      }
    }
    return queued
  }

  #takeBatch(): Pending[] {
    let recipients = 0
    let taken = 0
    while (taken < this.#waiting.length && (taken === 0 || recipients + this.#waiting[taken].send.numbers.length <= BATCH_RECIPIENTS)) {
      recipients += this.#waiting[taken].send.numbers.length
      taken++
    }
    return this.#waiting.splice(0, taken)
  }

  /**
   * Writes a batch; answers one RecordedAnswer or refusal per send, in order. The opt-out check
   * rides on the conversation upsert (one statement fewer on the one connection): when it finds
   * an opted-out number the transaction is rolled back and written again without those sends,
   * which is rare and still correct.
   */
  async #write(sends: PreparedSend[]): Promise<Array<RecordedAnswer | ApiError>> {
    const idempotency = await this.idempotency()
    let blocked = new Set<string>()
    for (;;) {
      try {
        return await db.transaction((trx) => this.#writeExcept(sends, blocked, idempotency, trx))
      } catch (error) {
        if (!(error instanceof OptedOutFound)) throw error
        blocked = new Set([...blocked, ...error.phones])
      }
    }
  }

  async #writeExcept(
    sends: PreparedSend[],
    blocked: Set<string>,
    idempotency: IdempotentRequests,
    trx: TransactionClientContract
  ): Promise<Array<RecordedAnswer | ApiError>> {
    const answers: Array<RecordedAnswer | ApiError> = sends.map((send) => refusalFor(send, blocked) ?? { status: 202, body: null, replayed: false })
    const accepted = sends.filter((_, index) => !(answers[index] instanceof ApiError))

    const conversations = await this.#touchConversations(accepted, trx)
    if (conversations.optedOut.length) throw new OptedOutFound(conversations.optedOut)
    const texts = new Map<PreparedSend, string>()
    for (const send of accepted) texts.set(send, send.shortenLinks ? await shortenLinks(send.body, trx, send.createdAt) : send.body)
    const rows = accepted.flatMap((send) => messageRows(send, texts.get(send)!, conversations.ids))
    const ids = await this.#insertMessages(rows, trx)

    let next = 0
    for (const [index, send] of sends.entries()) {
      if (answers[index] instanceof ApiError) continue
      const messages = send.numbers.map(() => {
        const row = rows[next]
        return Message.$createFromAdapterResult({ ...row, id: ids[next++] })!.serialize()
      })
      const answer: RecordedAnswer = { status: 202, body: { accepted: messages }, replayed: false }
      if (send.claim) await idempotency.record(send.claim, answer.status, answer.body, trx)
      answers[index] = answer
    }
    return answers
  }

  /**
   * One conversation per number: created by the first message, touched by every later one.
   * Answers their ids, and the numbers that turned out to be opted out (contacts.blacklisted).
   */
  async #touchConversations(sends: PreparedSend[], trx: TransactionClientContract): Promise<{ ids: Map<string, number>; optedOut: string[] }> {
    // The last send of the batch to a number gives the conversation its category and time.
    const latest = new Map<string, PreparedSend>()
    for (const send of sends) for (const phone of send.numbers) latest.set(phone, send)
    const entries = [...latest]
    const ids = new Map<string, number>()
    const optedOut: string[] = []
    for (let start = 0; start < entries.length; start += CHUNK) {
      const chunk = entries.slice(start, start + CHUNK)
      const rows = await trx.rawQuery(
        `INSERT INTO conversations (phone, contact_id, state, unread_count, pinned, archived, category, created_at, last_message_at)
         VALUES ${chunk.map(() => "(?, (SELECT id FROM contacts WHERE phone = ?), 'open', 0, 0, 0, ?, ?, ?)").join(', ')}
         ON CONFLICT (phone) DO UPDATE SET
           last_message_at = excluded.last_message_at,
           category = excluded.category,
           state = 'open',
           contact_id = COALESCE(conversations.contact_id, excluded.contact_id)
         RETURNING id, phone, (SELECT blacklisted FROM contacts WHERE contacts.phone = conversations.phone) AS opted_out`,
        chunk.flatMap(([phone, send]): any[] => [phone, phone, send.category, toIso(send.createdAt), toIso(send.createdAt)])
      )
      for (const row of rows) {
        ids.set(row.phone, row.id)
        if (row.opted_out) optedOut.push(row.phone)
      }
    }
    return { ids, optedOut }
  }

  async #insertMessages(rows: MessageRow[], trx: TransactionClientContract): Promise<number[]> {
    const columns = Object.keys(rows[0] ?? {}) as Array<keyof MessageRow>
    const ids: number[] = []
    for (let start = 0; start < rows.length; start += CHUNK) {
      const chunk = rows.slice(start, start + CHUNK)
      // knex's returning on a multi-row SQLite insert gives only the last id. RETURNING order
      // is unspecified, but rows of one VALUES list get increasing rowids in list order.
      const inserted = await trx.rawQuery(
        `INSERT INTO messages (${columns.join(', ')}) VALUES ${chunk.map(() => `(${columns.map(() => '?').join(', ')})`).join(', ')} RETURNING id`,
        chunk.flatMap((row): any[] => columns.map((column) => row[column]))
      )
      ids.push(...inserted.map((row: { id: number }) => row.id).sort((a: number, b: number) => a - b))
    }
    return ids
  }
}

type MessageRow = ReturnType<typeof messageRows>[number]

/** Thrown inside a batch's transaction to roll it back: these numbers opted out. */
class OptedOutFound extends Error {
  constructor(readonly phones: string[]) {
    super('opted-out numbers in the batch')
  }
}

/** The rows of a send exactly as SQLite stores them, so the answer needs no read back. */
function messageRows(send: PreparedSend, text: string, conversations: Map<string, number>) {
  const { encoding, segments } = countSegments(text)
  const at = toIso(send.createdAt)
  return send.numbers.map((phone) => ({
    conversation_id: conversations.get(phone)!,
    direction: 'out',
    category: send.category,
    phone,
    body: text,
    encoding,
    segments,
    status: 'queued',
    attempts: 0,
    error_code: null,
    hold_reason: null,
    held_until: null,
    device_id: send.deviceId,
    sim_slot: send.simSlot,
    // deviceId/simSlot force the phone and SIM and bypass routing (spec, Send request).
    forced_device_id: send.deviceId !== null && /^\d{1,15}$/.test(send.deviceId) ? Number(send.deviceId) : send.deviceId === null ? null : -1,
    forced_sim_slot: send.simSlot,
    scheduled_at: send.scheduledAt ? toIso(send.scheduledAt) : null,
    created_at: at,
    updated_at: at,
    sent_at: null,
    delivered_at: null,
    failed_at: null,
  }))
}

function refusalFor(send: PreparedSend, blocked: Set<string>): ApiError | null {
  const positions = send.numbers.flatMap((number, position) => (blocked.has(number) ? [position] : []))
  if (!positions.length) return null
  return new ApiError('CONTACT_BLACKLISTED', 'A recipient opted out; nothing was queued', { field: 'to', position: positions[0], positions })
}

declare module '@adonisjs/core/types' {
  interface EventsList {
    /** New messages wait for a phone: the dispatcher wakes. */
    'messages:queued': { count: number }
  }
}
