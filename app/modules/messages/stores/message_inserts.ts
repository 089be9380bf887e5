import type { TransactionClientContract } from '@adonisjs/lucid/types/database'
import type { InboundReport } from '#modules/devices/public'
import { countSegments } from '#core/sms/segment_counter'
import type { MessageCategory } from '#modules/messages/message_values'
import type { MessageRow } from '#modules/messages/schemas'
import { chunksOf } from '#core/database/statement_chunks'

/**
 * The one place messages are inserted (a unit test holds it): queued outbound messages, from an
 * API send or a campaign's turn, and received SMS. Every caller runs inside its own transaction,
 * with the conversation upsert before.
 */

/** What every recipient of one send shares: the columns bound once per send. */
const SHARED_COLUMNS = [
  'direction',
  'status',
  'attempts',
  'category',
  'body',
  'encoding',
  'segments',
  'device_id',
  'sim_slot',
  'forced_device_id',
  'forced_sim_slot',
  'scheduled_at',
  'campaign_id',
  'created_at',
] as const

/** A queued outbound message as it is written: its row, and the phone and SIM its send forced. */
export type QueuedMessage = MessageRow & { forced_device_id: number | null; forced_sim_slot: number | null }

/** What every recipient of one send shares: all but the id, the conversation and the number. */
type SharedColumns = Omit<QueuedMessage, 'id' | 'conversation_id' | 'phone'>

/** Recipients per INSERT: 4 values each plus 15 per send stays below SQLite's 32,766. */
const ROWS_PER_STATEMENT = 1000

/**
 * The phone a send forces, as the dispatcher reads it: a device id of digits is that phone, any
 * other text a phone that cannot exist (-1, so the message fails with DEVICE_NOT_PAIRED rather
 * than going to any phone).
 */
export function forcedDeviceId(deviceId: string | null): number | null {
  if (deviceId === null) return null
  return /^\d{1,15}$/.test(deviceId) ? Number(deviceId) : -1
}

/** What a send asks for its recipients, as the columns they share: its text counted, the phone it forces. */
export function sharedColumns(send: {
  category: MessageCategory
  body: string
  deviceId: string | null
  simSlot: number | null
  scheduledAt: string | null
  campaignId: number | null
  at: string
}): SharedColumns {
  const { encoding, segments } = countSegments(send.body)
  return {
    direction: 'out',
    category: send.category,
    body: send.body,
    encoding,
    segments,
    campaign_id: send.campaignId,
    status: 'queued',
    attempts: 0,
    error_code: null,
    hold_reason: null,
    held_until: null,
    device_id: send.deviceId,
    sim_slot: send.simSlot,
    // deviceId/simSlot force the phone and SIM and bypass routing (docs/sending.md, How a message leaves).
    forced_device_id: forcedDeviceId(send.deviceId),
    forced_sim_slot: send.simSlot,
    scheduled_at: send.scheduledAt,
    created_at: send.at,
    ordered_at: null,
    sent_at: null,
    delivered_at: null,
    failed_at: null,
  }
}

/**
 * One recipient's row: its conversation and number beside what its send shares, its id set once
 * written. Written out field by field rather than spread: a send makes one per recipient, and an
 * object built by spreading takes a slower shape in V8 (bench/profile.js shows it).
 */
export function recipientRow(shared: SharedColumns, conversationId: number, phone: string): QueuedMessage {
  return {
    id: 0,
    conversation_id: conversationId,
    direction: shared.direction,
    category: shared.category,
    phone,
    body: shared.body,
    encoding: shared.encoding,
    segments: shared.segments,
    campaign_id: shared.campaign_id,
    status: shared.status,
    attempts: shared.attempts,
    error_code: shared.error_code,
    hold_reason: shared.hold_reason,
    held_until: shared.held_until,
    device_id: shared.device_id,
    sim_slot: shared.sim_slot,
    forced_device_id: shared.forced_device_id,
    forced_sim_slot: shared.forced_sim_slot,
    scheduled_at: shared.scheduled_at,
    created_at: shared.created_at,
    ordered_at: shared.ordered_at,
    sent_at: shared.sent_at,
    delivered_at: shared.delivered_at,
    failed_at: shared.failed_at,
  }
}

/**
 * Writes queued messages and sets their ids, in order. `sends` groups the messages that
 * share every column but the number and conversation (one send's recipients): each recipient
 * binds its number and conversation, each group its shared columns once (a 500-recipient send
 * binds about 2,000 values, with its ordinals and groups, instead of 8,500).
 */
export async function insertQueued(trx: TransactionClientContract, sends: QueuedMessage[][]): Promise<void> {
  const pieces = sends.flatMap((rows) => chunksOf(rows, ROWS_PER_STATEMENT))
  const ids: number[] = []
  let statement: QueuedMessage[][] = []
  let recipients = 0
  for (const piece of pieces) {
    if (recipients + piece.length > ROWS_PER_STATEMENT) {
      ids.push(...(await insertStatement(trx, statement)))
      statement = []
      recipients = 0
    }
    statement.push(piece)
    recipients += piece.length
  }
  if (statement.length) ids.push(...(await insertStatement(trx, statement)))
  let next = 0
  for (const rows of sends) for (const row of rows) row.id = ids[next++]
}

/** Stores an SMS a phone received in its conversation, as delivered; answers its id. */
export async function insertReceived(
  trx: TransactionClientContract,
  sms: InboundReport,
  conversation: { id: number; category: MessageCategory },
  counted: { encoding: string; segments: number }
): Promise<number> {
  const [message] = await trx.rawQuery(
    `INSERT INTO messages (conversation_id, direction, category, phone, body, encoding, segments, status, attempts,
       device_id, sim_slot, created_at, updated_at, inbound_ref)
     VALUES (?, 'in', ?, ?, ?, ?, ?, 'delivered', 0, ?, ?, ?, ?, ?) RETURNING id`,
    [
      conversation.id,
      conversation.category,
      sms.phone,
      sms.body,
      counted.encoding,
      counted.segments,
      String(sms.deviceId),
      sms.simSlot,
      sms.receivedAt.toISOString(),
      sms.at.toISOString(),
      sms.ref,
    ]
  )
  return message.id
}

async function insertStatement(trx: TransactionClientContract, groups: QueuedMessage[][]): Promise<number[]> {
  const perRecipient: unknown[] = []
  const perSend: unknown[] = []
  let ordinal = 0
  groups.forEach((rows, group) => {
    perSend.push(group, ...SHARED_COLUMNS.map((column) => rows[0][column]))
    for (const row of rows) perRecipient.push(ordinal++, group, row.conversation_id, row.phone)
  })
  const sendColumn = (index: number) => `s.column${index + 2}`
  // Rows get increasing rowids in the SELECT's order; RETURNING's order is unspecified, so
  // the ids are sorted.
  const inserted = await trx.rawQuery(
    `INSERT INTO messages (conversation_id, phone, ${SHARED_COLUMNS.join(', ')}, updated_at)
     SELECT r.column3, r.column4, ${SHARED_COLUMNS.map((_, index) => sendColumn(index)).join(', ')},
       ${sendColumn(SHARED_COLUMNS.indexOf('created_at'))}
     FROM (VALUES ${groups.flat().map(() => '(?, ?, ?, ?)').join(', ')}) AS r
     JOIN (VALUES ${groups.map(() => `(?, ${SHARED_COLUMNS.map(() => '?').join(', ')})`).join(', ')}) AS s ON s.column1 = r.column2
     ORDER BY r.column1
     RETURNING id`,
    [...perRecipient, ...perSend] as any[]
  )
  return inserted.map((row: { id: number }) => row.id).sort((a: number, b: number) => a - b)
}
