import db from '@adonisjs/lucid/services/db'
import type { QueryClientContract, TransactionClientContract } from '@adonisjs/lucid/types/database'
import type { DateTime } from 'luxon'
import { toIso } from '#core/database/utc_date_time'
import { likeContaining } from '#core/database/like_pattern'
import { keysetPage, type Page, type PageRequest } from '#core/pagination/keyset_page'
import ContactGroup from '#modules/contacts/models/contact_group'

/**
 * The `contact_groups` and `contact_group_members` tables (docs/modules.md, Data access): the
 * ContactGroup model for a group's reads and writes, SQL text for the members, added, removed
 * and read many at once, each one statement whatever their number (ids travel as one JSON array
 * through `json_each`).
 */
export class GroupStore {
  /** A page of groups, newest first; `q`: part of the name. */
  async page(filters: PageRequest & { q?: string }): Promise<Page<ContactGroup>> {
    const query = ContactGroup.query()
    if (filters.q) query.whereRaw(`name LIKE ? ESCAPE '\\'`, [likeContaining(filters.q)])
    return keysetPage(query, filters, 'created_at', (row) => toIso(row.createdAt))
  }

  async find(id: number): Promise<ContactGroup | null> {
    return ContactGroup.find(id)
  }

  async exists(id: number): Promise<boolean> {
    return Boolean(await db.from('contact_groups').where('id', id).first())
  }

  /** Whether a group has this name, whatever its case. */
  async nameTaken(name: string): Promise<boolean> {
    return Boolean(await ContactGroup.query().whereRaw('name = ? COLLATE NOCASE', [name]).first())
  }

  async add(fields: { name: string; description: string | null; at: DateTime }): Promise<ContactGroup> {
    return ContactGroup.create({ name: fields.name, description: fields.description, createdAt: fields.at, updatedAt: fields.at })
  }

  /** The fields given; `updatedAt` always. */
  async change(group: ContactGroup, fields: { name?: string; description?: string | null; updatedAt: DateTime }): Promise<void> {
    group.merge(fields)
    await group.save()
  }

  /** The group goes; its contacts stay (only the memberships go, by the schema's cascade). */
  async remove(group: ContactGroup): Promise<void> {
    await group.delete()
  }

  /**
   * Adds the contacts among `ids` that exist to the group, in the caller's transaction; answers
   * how many were added, how many were members already and how many of `ids` exist.
   */
  async addMembers(trx: TransactionClientContract, groupId: number, ids: number[], at: string): Promise<{ added: number; members: number; existing: number }> {
    const { existing, members } = await this.membersAmong(groupId, ids, trx)
    const inserted = await trx.rawQuery(
      `INSERT INTO contact_group_members (group_id, contact_id, added_at)
       SELECT ?, c.id, ? FROM contacts c WHERE c.id IN (SELECT value FROM json_each(?))
       ON CONFLICT (group_id, contact_id) DO NOTHING RETURNING contact_id`,
      [groupId, at, JSON.stringify(ids)]
    )
    return { added: inserted.length, members: Number(members), existing: Number(existing) }
  }

  /** How many of `ids` are contacts, and how many of those are in the group (also a dry run's count). */
  async membersAmong(groupId: number, ids: number[], client: QueryClientContract = db.connection()): Promise<{ existing: number; members: number }> {
    const [{ existing, members }] = await client.rawQuery(
      `SELECT COUNT(c.id) AS existing, COUNT(m.contact_id) AS members
       FROM json_each(?) AS wanted
       LEFT JOIN contacts c ON c.id = wanted.value
       LEFT JOIN contact_group_members m ON m.group_id = ? AND m.contact_id = c.id`,
      [JSON.stringify(ids), groupId]
    )
    return { existing: Number(existing), members: Number(members) }
  }

  /** Contacts an import wrote join its group (those in it already stay), in the caller's transaction. */
  async addImported(trx: TransactionClientContract, groupId: number, contactIds: number[], at: string): Promise<void> {
    await trx.rawQuery(`INSERT OR IGNORE INTO contact_group_members (group_id, contact_id, added_at) SELECT ?, value, ? FROM json_each(?)`, [
      groupId,
      at,
      JSON.stringify(contactIds),
    ])
  }

  /** Answers how many of `contactIds` left the group. */
  async removeMembers(groupId: number, contactIds: number[]): Promise<number> {
    const removed = await db.rawQuery(
      `DELETE FROM contact_group_members WHERE group_id = ? AND contact_id IN (SELECT value FROM json_each(?)) RETURNING contact_id`,
      [groupId, JSON.stringify(contactIds)]
    )
    return removed.length
  }

  /** The groups of each contact, by name. */
  async groupsOf(contactIds: number[]): Promise<Map<number, Array<{ id: string; name: string }>>> {
    const groups = new Map<number, Array<{ id: string; name: string }>>()
    const rows = await db.rawQuery(
      `SELECT m.contact_id, g.id, g.name FROM contact_group_members m JOIN contact_groups g ON g.id = m.group_id
       WHERE m.contact_id IN (SELECT value FROM json_each(?)) ORDER BY g.name, g.id`,
      [JSON.stringify(contactIds)]
    )
    for (const row of rows) {
      const list = groups.get(row.contact_id) ?? []
      list.push({ id: String(row.id), name: row.name })
      groups.set(row.contact_id, list)
    }
    return groups
  }

  /** Whether the number's contact is in one of the groups. */
  async hasMemberWithPhone(groupIds: number[], phone: string): Promise<boolean> {
    const [row] = await db.rawQuery(
      `SELECT 1 AS found FROM contacts c JOIN contact_group_members m ON m.contact_id = c.id
       WHERE c.phone = ? AND m.group_id IN (SELECT value FROM json_each(?)) LIMIT 1`,
      [phone, JSON.stringify(groupIds)]
    )
    return Boolean(row)
  }

  async memberCounts(groupIds: number[]): Promise<Map<number, number>> {
    const counts = new Map<number, number>()
    const rows = await db.rawQuery(
      `SELECT group_id, COUNT(*) AS members FROM contact_group_members WHERE group_id IN (SELECT value FROM json_each(?)) GROUP BY group_id`,
      [JSON.stringify(groupIds)]
    )
    for (const row of rows) counts.set(row.group_id, Number(row.members))
    return counts
  }
}
