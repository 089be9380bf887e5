import { inject } from '@adonisjs/core'
import db from '@adonisjs/lucid/services/db'
import { Clock } from '#core/time/clock'
import { ApiError } from '#core/http/api_error'
import { dateTimeOf, toIso } from '#core/database/utc_date_time'
import { keysetPage, type PageRequest } from '#core/pagination/keyset_page'
import ContactGroup, { groupResource } from '#modules/contacts/models/contact_group'
import { likeContaining } from '#core/database/like_pattern'
import { transaction } from '#core/database/transaction'
import type { PageOf } from '#core/contract/schemas'
import type { MembersAdded, MembersRemoved, groupSchema } from '#modules/contacts/schemas'

export interface GroupFields {
  name: string
  description?: string | null
}

/**
 * Contact groups and their members. A contact may be in many groups; deleting a group keeps its
 * contacts, deleting a contact removes its memberships (foreign keys cascade). Members are added
 * and removed many at once, one statement per call.
 */
@inject()
export class ContactGroups {
  constructor(private clock: Clock) {}

  async list(filters: PageRequest & { q?: string }): Promise<PageOf<typeof groupSchema>> {
    const query = ContactGroup.query()
    if (filters.q) query.whereRaw(`name LIKE ? ESCAPE '\\'`, [likeContaining(filters.q)])
    const page = await keysetPage(query, filters, 'created_at', (row) => toIso(row.createdAt))
    const counts = await this.memberCounts(page.data.map((group) => group.id))
    return { data: page.data.map((group) => this.#resource(group, counts.get(group.id) ?? 0)), nextCursor: page.nextCursor }
  }

  async find(id: number) {
    const group = await this.#group(id)
    return this.#resource(group, (await this.memberCounts([id])).get(id) ?? 0)
  }

  async create(fields: GroupFields) {
    const now = dateTimeOf(this.clock.now())
    await this.#assertNameFree(fields.name)
    const group = await ContactGroup.create({ name: fields.name, description: fields.description ?? null, createdAt: now, updatedAt: now })
    return this.#resource(group, 0)
  }

  async update(id: number, change: Partial<GroupFields>) {
    const group = await this.#group(id)
    if (change.name !== undefined && change.name !== group.name) await this.#assertNameFree(change.name)
    group.merge({ ...change, updatedAt: dateTimeOf(this.clock.now()) })
    await group.save()
    return this.find(id)
  }

  /** The group goes; its contacts stay (only the memberships go, by cascade). */
  async delete(id: number): Promise<void> {
    const group = await this.#group(id)
    await group.delete()
  }

  /** Adds contacts to a group; ids of contacts that do not exist are counted, not refused. */
  async addMembers(id: number, contactIds: number[]): Promise<MembersAdded> {
    await this.#group(id)
    const ids = [...new Set(contactIds)]
    const at = this.clock.now().toISOString()
    return transaction(async (trx) => {
      const [{ existing, members }] = await trx.rawQuery(
        `SELECT COUNT(c.id) AS existing, COUNT(m.contact_id) AS members
         FROM json_each(?) AS wanted
         LEFT JOIN contacts c ON c.id = wanted.value
         LEFT JOIN contact_group_members m ON m.group_id = ? AND m.contact_id = c.id`,
        [JSON.stringify(ids), id]
      )
      const inserted = await trx.rawQuery(
        `INSERT INTO contact_group_members (group_id, contact_id, added_at)
         SELECT ?, c.id, ? FROM contacts c WHERE c.id IN (SELECT value FROM json_each(?))
         ON CONFLICT (group_id, contact_id) DO NOTHING RETURNING contact_id`,
        [id, at, JSON.stringify(ids)]
      )
      return { added: inserted.length, alreadyMembers: Number(members), notFound: ids.length - Number(existing) }
    })
  }

  async removeMembers(id: number, contactIds: number[]): Promise<MembersRemoved> {
    await this.#group(id)
    const removed = await db.rawQuery(
      `DELETE FROM contact_group_members WHERE group_id = ? AND contact_id IN (SELECT value FROM json_each(?)) RETURNING contact_id`,
      [id, JSON.stringify([...new Set(contactIds)])]
    )
    return { removed: removed.length }
  }

  /** The groups of each contact (the contact resource's `groups`), in one statement. */
  async groupsOf(contactIds: number[]): Promise<Map<number, Array<{ id: string; name: string }>>> {
    const groups = new Map<number, Array<{ id: string; name: string }>>()
    if (!contactIds.length) return groups
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

  /** Whether the number's contact is in one of the groups (a rule's "sender in group"). */
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
    if (!groupIds.length) return counts
    const rows = await db.rawQuery(
      `SELECT group_id, COUNT(*) AS members FROM contact_group_members WHERE group_id IN (SELECT value FROM json_each(?)) GROUP BY group_id`,
      [JSON.stringify(groupIds)]
    )
    for (const row of rows) counts.set(row.group_id, Number(row.members))
    return counts
  }

  async #group(id: number): Promise<ContactGroup> {
    const group = await ContactGroup.find(id)
    if (!group) throw ApiError.notFound('Group')
    return group
  }

  async #assertNameFree(name: string) {
    if (await ContactGroup.query().whereRaw('name = ? COLLATE NOCASE', [name]).first()) {
      throw new ApiError('NAME_TAKEN', 'Another group has this name', [{ field: 'name', rule: 'unique', message: 'Another group has this name' }])
    }
  }

  #resource(group: ContactGroup, memberCount: number) {
    return groupResource(group, memberCount)
  }
}
