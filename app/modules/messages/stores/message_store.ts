import db from '@adonisjs/lucid/services/db'
import type { ChainableContract } from '@adonisjs/lucid/types/querybuilder'
import { storedDateBound } from '#core/database/utc_date_time'
import { keysetPage, type Page, type PageRequest } from '#core/pagination/keyset_page'
import { messageSchema, storedColumn, type MessageRow } from '#modules/messages/schemas'
import type { MessageCategory, MessageStatus } from '#modules/messages/message_values'
import { eachChunk } from '#core/database/statement_chunks'
import type { SearchCondition } from '#modules/messages/stores/message_search'

export interface MessageFilters extends PageRequest {
  direction?: 'in' | 'out'
  status?: MessageStatus
  category?: MessageCategory
  /** E.164, as stored. */
  phone?: string
  conversationId?: string | number
  deviceId?: string
  campaignId?: string
  since?: string
  until?: string
  /** Words or a number part, matched by `matching` (MessageSearch.listCondition). */
  q?: string
  matching?: SearchCondition
}

/**
 * The list's filters as conditions on `messages`: one definition for the list, the bulk actions
 * and the export (export_rows.ts), which must match the same messages.
 */
export function whereMessageFilters<Query extends ChainableContract>(query: Query, filters: MessageFilters): Query {
  // The direction and the category split the table in a few large parts: beside a filter that
  // bounds the rows more (a status, a conversation, a phone, a campaign, a number), they are
  // written `+column` (SQLite's unary plus), so the planner cannot take their index. With no
  // statistics it prefers the index of an equality it meets first, took
  // `messages_direction_created_at_id` for "outbound and failed" and walked every outbound
  // message ever stored to fill a page with the few failed ones.
  const bounded = Boolean(filters.status || filters.phone) || [filters.conversationId, filters.deviceId, filters.campaignId].some((id) => id !== undefined)
  const coarse = (column: 'direction' | 'category', value: string) => (bounded ? query.whereRaw(`+${column} = ?`, [value]) : query.where(column, value))
  if (filters.direction) coarse('direction', filters.direction)
  if (filters.status) query.where('status', filters.status)
  if (filters.category) coarse('category', filters.category)
  if (filters.conversationId !== undefined) query.where('conversation_id', Number(filters.conversationId))
  if (filters.deviceId !== undefined) query.where('device_id', filters.deviceId)
  if (filters.campaignId !== undefined) query.where('campaign_id', Number(filters.campaignId))
  if (filters.phone) query.where('phone', filters.phone)
  if (filters.since) query.where('created_at', '>=', storedDateBound(filters.since, 'since'))
  if (filters.until) query.where('created_at', '<', storedDateBound(filters.until, 'until'))
  if (filters.matching) query.whereRaw(filters.matching.sql, filters.matching.bindings as any[])
  return query
}

/** The columns of the Message resource, as stored (never `updated_at`, the forced phone or the phone's reference). */
const RESOURCE_COLUMNS = Object.keys(messageSchema.properties).map(storedColumn)

/** A message as a delete or a retry decides on it: its state and where it went, never its text. */
export type ChosenMessage = Pick<MessageRow, 'id' | 'conversation_id' | 'direction' | 'status' | 'device_id' | 'ordered_at' | 'campaign_id'>
const CHOSEN_COLUMNS = ['id', 'conversation_id', 'direction', 'status', 'device_id', 'ordered_at', 'campaign_id'] as const satisfies ReadonlyArray<keyof ChosenMessage>

/**
 * The messages as they are read and deleted (docs/modules.md, Data access): the query builder,
 * rows as stored (the Message resource is `messageResource` of one), and SQL text for the
 * chunked deletes and reads by ids. A message's state changes are MessageStateStore's, its
 * inserts message_inserts.ts's.
 */
export class MessageStore {
  /** Newest first, keyset pages: as fast on the last page as on the first. */
  async page(filters: MessageFilters): Promise<Page<MessageRow>> {
    return keysetPage(this.#filtered(filters).select(...RESOURCE_COLUMNS), filters, 'created_at', (row) => row.created_at, 'messages')
  }

  /** What a bulk action reads of the messages its filter matches, up to `limit`, oldest first. */
  async selection(filters: MessageFilters, limit: number): Promise<ChosenMessage[]> {
    return this.#filtered(filters).select(...CHOSEN_COLUMNS).orderBy('id').limit(limit)
  }

  /** The same of the messages among `ids` (an id of no message is absent). */
  async selected(ids: number[]): Promise<ChosenMessage[]> {
    return eachChunk(ids, 5000, (chunk) => db.from('messages').select(...CHOSEN_COLUMNS).whereIn('id', chunk).orderBy('id'))
  }

  #filtered(filters: MessageFilters) {
    return whereMessageFilters(db.from('messages'), filters)
  }

  async find(id: number): Promise<MessageRow | null> {
    return db.from('messages').select(...RESOURCE_COLUMNS).where('id', id).first()
  }

  /** Deletes these messages, a statement per chunk; answers the ids deleted (one deleted meanwhile is not). */
  async delete(ids: number[]): Promise<Set<number>> {
    const rows = await eachChunk(ids, 5000, (chunk): Promise<Array<{ id: number }>> =>
      db.rawQuery(`DELETE FROM messages WHERE id IN (SELECT value FROM json_each(?)) RETURNING id`, [JSON.stringify(chunk)])
    )
    return new Set(rows.map((row) => row.id))
  }

  /** Whether a phone's received SMS with this reference is stored already. */
  async hasInbound(deviceId: number, ref: string): Promise<boolean> {
    return Boolean(await db.from('messages').where('device_id', String(deviceId)).where('inbound_ref', ref).first())
  }
}
