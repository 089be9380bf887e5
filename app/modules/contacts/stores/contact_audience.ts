import db from '@adonisjs/lucid/services/db'
import { chunksOf } from '#core/database/statement_chunks'

/** Who a bulk send names: groups, single contacts, the contacts of CSV imports (numbers without a contact are the caller's). */
export interface AudienceSelection {
  groupIds: number[]
  contactIds: number[]
  importIds?: number[]
}

/** One contact of an audience, with what a template may show. */
export interface AudienceMember {
  contactId: number
  phone: string
  /** Opted out: never sent to. */
  blacklisted: boolean
  firstName: string | null
  lastName: string | null
  company: string | null
  email: string | null
  fields: Record<string, string>
}

/** Members per read: a 100,000-contact audience is 20 statements, never one huge answer. */
export const AUDIENCE_PAGE = 5000

const COLUMNS = 'id, phone, blacklisted, first_name, last_name, company, email, fields'

function memberOf(row: any): AudienceMember {
  return {
    contactId: row.id,
    phone: row.phone,
    blacklisted: Boolean(row.blacklisted),
    firstName: row.first_name,
    lastName: row.last_name,
    company: row.company,
    email: row.email,
    fields: row.fields ? JSON.parse(row.fields) : {},
  }
}

/**
 * The audiences campaigns and rules name, read from the `contacts`, `contact_group_members` and
 * `contact_import_contacts` tables (docs/modules.md, Data access) in SQL text: a page is one
 * statement whatever the number of sources, each source's ids bound as one JSON array.
 *
 * Reads an audience for campaigns and rules: every contact of the groups, of the imports and
 * every contact named, each once (a contact in two groups and named too is served once), in id
 * order, page by page, with `occurrences`: how many of the selection's sources hold it (each
 * group, each import, and the contacts named), so a campaign can count the repeats it left out.
 * Deleted groups and contacts simply contribute nothing.
 */
export class ContactAudience {
  async *members(selection: AudienceSelection, pageSize = AUDIENCE_PAGE): AsyncGenerator<Array<AudienceMember & { occurrences: number }>> {
    const groupIds = [...new Set(selection.groupIds)]
    const importIds = [...new Set(selection.importIds ?? [])]
    const contactIds = await this.#existing(selection.contactIds)
    if (!groupIds.length && !contactIds.length && !importIds.length) return
    // With one source every contact is met once: no counting statement at all (the common case).
    const sourceCount = groupIds.length + importIds.length + (contactIds.length ? 1 : 0)
    const named = new Set(contactIds)
    let after = 0
    let nextNamed = 0
    for (;;) {
      // Each source's next distinct ids after the last page, in id order and at most a page of
      // them (a contact in two groups is one id): the next page is among these, so a page costs the same at the start and at the end of a
      // large audience (re-reading every remaining id per page made it quadratic). Ids travel as
      // one JSON array each: any number of them is one bound variable.
      const sources: string[] = []
      const bindings: Array<string | number> = []
      if (groupIds.length) {
        sources.push('SELECT * FROM (SELECT DISTINCT contact_id AS id FROM contact_group_members WHERE group_id IN (SELECT value FROM json_each(?)) AND contact_id > ? ORDER BY contact_id LIMIT ?)')
        bindings.push(JSON.stringify(groupIds), after, pageSize)
      }
      if (importIds.length) {
        sources.push('SELECT * FROM (SELECT DISTINCT contact_id AS id FROM contact_import_contacts WHERE import_id IN (SELECT value FROM json_each(?)) AND contact_id > ? ORDER BY contact_id LIMIT ?)')
        bindings.push(JSON.stringify(importIds), after, pageSize)
      }
      while (nextNamed < contactIds.length && contactIds[nextNamed] <= after) nextNamed++
      const window = contactIds.slice(nextNamed, nextNamed + pageSize)
      if (window.length) {
        sources.push('SELECT value AS id FROM json_each(?)')
        bindings.push(JSON.stringify(window))
      }
      if (!sources.length) return
      const rows = await db.rawQuery(`SELECT ${COLUMNS} FROM contacts WHERE id IN (${sources.join(' UNION ')}) ORDER BY id LIMIT ?`, [...bindings, pageSize])
      // A contact named and deleted meanwhile leaves its window short: nothing past the window's
      // end is served before the ids after it were looked at.
      const windowEnd = window.length === pageSize ? window[window.length - 1] : null
      const page = windowEnd === null ? rows : rows.filter((row: { id: number }) => row.id <= windowEnd)
      if (!page.length) {
        if (windowEnd === null) return
        after = windowEnd
        continue
      }
      after = page[page.length - 1].id
      const ids = page.map((row: { id: number }) => row.id)
      const held = sourceCount > 1 ? await this.#memberships(ids, groupIds, importIds) : new Map<number, number>()
      yield page.map((row: any) => ({
        ...memberOf(row),
        // At least once: a membership removed between the two statements still served it.
        occurrences: sourceCount > 1 ? Math.max(1, (held.get(row.id) ?? 0) + (named.has(row.id) ? 1 : 0)) : 1,
      }))
    }
  }

  /** How many of the groups and imports hold each of `ids` (one statement per page, by their primary keys). */
  async #memberships(ids: number[], groupIds: number[], importIds: number[]): Promise<Map<number, number>> {
    const counts = new Map<number, number>()
    const parts: string[] = []
    const bindings: string[] = []
    if (groupIds.length) {
      parts.push('SELECT contact_id FROM contact_group_members WHERE group_id IN (SELECT value FROM json_each(?)) AND contact_id IN (SELECT value FROM json_each(?))')
      bindings.push(JSON.stringify(groupIds), JSON.stringify(ids))
    }
    if (importIds.length) {
      parts.push('SELECT contact_id FROM contact_import_contacts WHERE import_id IN (SELECT value FROM json_each(?)) AND contact_id IN (SELECT value FROM json_each(?))')
      bindings.push(JSON.stringify(importIds), JSON.stringify(ids))
    }
    if (!parts.length) return counts
    const rows = await db.rawQuery(`SELECT contact_id, COUNT(*) AS n FROM (${parts.join(' UNION ALL ')}) GROUP BY contact_id`, bindings)
    for (const row of rows) counts.set(row.contact_id, Number(row.n))
    return counts
  }

  /** The contacts among `ids` that exist, in id order (a deleted contact contributes nothing). */
  async #existing(ids: number[]): Promise<number[]> {
    if (!ids.length) return []
    const rows = await db.rawQuery(`SELECT id FROM contacts WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id`, [JSON.stringify([...new Set(ids)])])
    return rows.map((row: { id: number }) => row.id)
  }

  /** The numbers among `phones` whose contact opted out (a campaign's turn comes, a rule replies). */
  async optedOut(phones: string[]): Promise<Set<string>> {
    if (!phones.length) return new Set()
    const rows = await db.rawQuery(`SELECT phone FROM contacts WHERE blacklisted = 1 AND phone IN (SELECT value FROM json_each(?))`, [
      JSON.stringify([...new Set(phones)]),
    ])
    return new Set(rows.map((row: { phone: string }) => row.phone))
  }

  /** The contacts of `phones` (for a campaign's numbers that belong to a contact). */
  async byPhone(phones: string[]): Promise<Map<string, AudienceMember>> {
    const found = new Map<string, AudienceMember>()
    const unique = [...new Set(phones)]
    for (const page of chunksOf(unique, AUDIENCE_PAGE)) {
      const rows = await db.rawQuery(`SELECT ${COLUMNS} FROM contacts WHERE phone IN (SELECT value FROM json_each(?))`, [JSON.stringify(page)])
      for (const row of rows) found.set(row.phone, memberOf(row))
    }
    return found
  }
}
