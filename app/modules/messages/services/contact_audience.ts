import db from '@adonisjs/lucid/services/db'

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
 * Reads an audience for campaigns and rules: every contact of the groups, of the imports and
 * every contact named, each once (a contact in two groups and named too counts once), in id order,
 * page by page. Deleted groups and contacts simply contribute nothing.
 */
export class ContactAudience {
  async *members(selection: AudienceSelection, pageSize = AUDIENCE_PAGE): AsyncGenerator<AudienceMember[]> {
    const groupIds = [...new Set(selection.groupIds)]
    const contactIds = [...new Set(selection.contactIds)]
    const importIds = [...new Set(selection.importIds ?? [])]
    if (!groupIds.length && !contactIds.length && !importIds.length) return
    // Ids travel as one JSON array each: any number of them is one bound variable.
    const sources = ['SELECT value FROM json_each(?)', 'SELECT contact_id FROM contact_group_members WHERE group_id IN (SELECT value FROM json_each(?))']
    const bindings = [JSON.stringify(contactIds), JSON.stringify(groupIds)]
    if (importIds.length) {
      sources.push('SELECT contact_id FROM contact_import_contacts WHERE import_id IN (SELECT value FROM json_each(?))')
      bindings.push(JSON.stringify(importIds))
    }
    let after = 0
    for (;;) {
      const rows = await db.rawQuery(`SELECT ${COLUMNS} FROM contacts WHERE id > ? AND id IN (${sources.join(' UNION ')}) ORDER BY id LIMIT ?`, [
        after,
        ...bindings,
        pageSize,
      ])
      if (!rows.length) return
      after = rows[rows.length - 1].id
      yield rows.map(memberOf)
      if (rows.length < pageSize) return
    }
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
    for (let start = 0; start < unique.length; start += AUDIENCE_PAGE) {
      const rows = await db.rawQuery(`SELECT ${COLUMNS} FROM contacts WHERE phone IN (SELECT value FROM json_each(?))`, [
        JSON.stringify(unique.slice(start, start + AUDIENCE_PAGE)),
      ])
      for (const row of rows) found.set(row.phone, memberOf(row))
    }
    return found
  }
}
