import db from '@adonisjs/lucid/services/db'
import type { QueryClientContract, TransactionClientContract } from '@adonisjs/lucid/types/database'
import type { DateTime } from 'luxon'
import { toIso } from '#core/database/utc_date_time'
import { likeContaining } from '#core/database/like_pattern'
import { keysetPage, type Page, type PageRequest } from '#core/pagination/keyset_page'
import Contact from '#modules/contacts/models/contact'
import { chunksOf } from '#core/database/statement_chunks'

/** A contact's own columns, as the API sets them. */
export interface ContactColumns {
  phone: string
  firstName: string | null
  lastName: string | null
  company: string | null
  email: string | null
  notes: string | null
  tags: string[]
  fields: Record<string, string>
  blacklisted: boolean
}

export interface ContactFilters extends PageRequest {
  blacklisted?: boolean
  tag?: string
  /** Normalised. */
  phone?: string
  q?: string
  groupId?: number
}

/** What a CSV row gives a contact (a row written by an import). */
export interface ImportedValues {
  phone: string
  firstName: string | null
  lastName: string | null
  company: string | null
  email: string | null
  tags: string[]
  fields: Record<string, string>
}

/** Contacts per statement of an import's chunk. */
const IMPORT_STATEMENT_ROWS = 200

/** A search text written like a phone number: its digits are looked for in the numbers. */
const LOOKS_LIKE_A_NUMBER = /^[+\d\s().-]*\d[\d\s().-]*$/

/** The columns of the contacts export, as the table names them. */
const EXPORT_COLUMNS = ['id', 'phone', 'first_name', 'last_name', 'company', 'email', 'notes', 'tags', 'blacklisted', 'created_at', 'updated_at']

/**
 * The `contacts` and `contact_import_contacts` tables (docs/modules.md, Data access): the Contact
 * model for a contact's reads and writes and the list, the query builder for the export's chunks,
 * and SQL text for what reads or writes many contacts in one statement (an import's chunk: `INSERT
 * … RETURNING`, `UPDATE … FROM (VALUES …)`, the contacts it wrote; an opt-out's chunk, `UPDATE …
 * RETURNING`; the custom field keys through `json_each`).
 */
export class ContactStore {
  /** A page of contacts, newest first; `q` is typed by a person (part of a name, company, e-mail or number). */
  async page(filters: ContactFilters): Promise<Page<Contact>> {
    return keysetPage(this.#filtered(filters), filters, 'created_at', (row) => toIso(row.createdAt))
  }

  /** The ids of the contacts the list's filters match, up to `limit` (an action over everything matching). */
  async matchingIds(filters: ContactFilters, limit: number): Promise<number[]> {
    const rows = await this.#filtered(filters).select('id').orderBy('id').limit(limit)
    return rows.map((contact) => contact.id)
  }

  /**
   * How many of `ids` are contacts, and how many of those have opted out: a dry run's count, and
   * an opt-out's on its transaction (`client`) before it changes them.
   */
  async optedOutAmong(ids: number[], client: QueryClientContract = db.connection()): Promise<{ existing: number; optedOut: number }> {
    const [row] = await client.rawQuery(
      `SELECT COUNT(*) AS existing, COALESCE(SUM(blacklisted), 0) AS opted_out FROM contacts WHERE id IN (SELECT value FROM json_each(?))`,
      [JSON.stringify(ids)]
    )
    return { existing: Number(row.existing), optedOut: Number(row.opted_out) }
  }

  #filtered(filters: Omit<ContactFilters, 'limit' | 'cursor'>) {
    const query = Contact.query()
    if (filters.groupId !== undefined) {
      query.whereExists((member) =>
        member.from('contact_group_members').whereColumn('contact_group_members.contact_id', 'contacts.id').where('contact_group_members.group_id', filters.groupId!)
      )
    }
    if (filters.q) {
      const search = filters.q
      const pattern = likeContaining(search)
      query.where((match) => {
        for (const column of ['first_name', 'last_name', 'company', 'email']) match.orWhereRaw(`${column} LIKE ? ESCAPE '\\'`, [pattern])
        match.orWhereRaw(`(COALESCE(first_name, '') || ' ' || COALESCE(last_name, '')) LIKE ? ESCAPE '\\'`, [pattern])
        if (LOOKS_LIKE_A_NUMBER.test(search)) match.orWhere('phone', 'like', likeContaining(search.replace(/\D/g, '')))
      })
    }
    if (filters.blacklisted !== undefined) query.where('blacklisted', filters.blacklisted)
    if (filters.tag) query.whereRaw('EXISTS (SELECT 1 FROM json_each(contacts.tags) WHERE json_each.value = ?)', [filters.tag])
    if (filters.phone) query.where('phone', filters.phone)
    return query
  }

  async find(id: number): Promise<Contact | null> {
    return Contact.find(id)
  }

  /** A contact by id; throws the model's not-found error when there is none. */
  async findOrFail(id: number): Promise<Contact> {
    return Contact.findOrFail(id)
  }

  /** A contact read in the caller's transaction. */
  async findIn(trx: TransactionClientContract, id: number): Promise<Contact | null> {
    return Contact.query({ client: trx }).where('id', id).first()
  }

  /**
   * Those of `ids` not opted out yet are opted out, in the caller's transaction, in one statement
   * (guarded by the flag, so one opted out already keeps its `updated_at`); answers each one's id
   * and number. The opt-out counters' trigger counts each row as a change made alone would be.
   */
  async optOut(trx: TransactionClientContract, ids: number[], at: DateTime): Promise<Array<{ id: number; phone: string }>> {
    const rows = await trx.rawQuery(
      `UPDATE contacts SET blacklisted = 1, updated_at = ? WHERE id IN (SELECT value FROM json_each(?)) AND blacklisted = 0 RETURNING id, phone`,
      [toIso(at), JSON.stringify(ids)]
    )
    return rows.map((row: { id: number; phone: string }) => ({ id: row.id, phone: row.phone }))
  }

  async findByPhone(phone: string): Promise<Contact | null> {
    return Contact.findBy('phone', phone)
  }

  async phoneTaken(trx: TransactionClientContract, phone: string): Promise<boolean> {
    return Boolean(await trx.from('contacts').where('phone', phone).first())
  }

  async add(trx: TransactionClientContract, columns: ContactColumns & { at: DateTime }): Promise<Contact> {
    const { at, ...fields } = columns
    return Contact.create({ ...fields, createdAt: at, updatedAt: at }, { client: trx })
  }

  /** The columns given; `updatedAt` always. */
  async change(trx: TransactionClientContract, contact: Contact, columns: Partial<ContactColumns> & { updatedAt: DateTime }): Promise<void> {
    contact.merge(columns)
    await contact.useTransaction(trx).save()
  }

  /** The contact goes, its memberships with it (the schema's cascade). */
  async remove(contact: Contact): Promise<void> {
    await contact.delete()
  }

  /** Up to `limit` rows as the table holds them, oldest first by (created_at, id), after `after`. */
  async exportChunk(after: { createdAt: string; id: number } | null, limit: number): Promise<any[]> {
    const query = db.from('contacts').select(EXPORT_COLUMNS).orderBy('created_at').orderBy('id').limit(limit)
    if (after) query.whereRaw('(created_at, id) > (?, ?)', [after.createdAt, after.id])
    return query
  }

  /**
   * The custom field keys contacts use, with how many contacts have each, most used first (200 at
   * most). One pass over the contacts' JSON: fine for a contact book, and read only when an editor opens.
   */
  async fieldKeys(): Promise<Array<{ key: string; contacts: number }>> {
    const rows = await db.rawQuery(
      `SELECT field.key AS key, COUNT(*) AS contacts FROM contacts, json_each(contacts.fields) AS field
       WHERE contacts.fields != '{}' GROUP BY field.key ORDER BY contacts DESC, field.key ASC LIMIT 200`
    )
    return rows.map((row: { key: string; contacts: number }) => ({ key: row.key, contacts: Number(row.contacts) }))
  }

  /**
   * The contacts of these numbers as an import merges a row into them, in the caller's
   * transaction, by number; `seen`: the import `importId` wrote it already (an earlier chunk).
   */
  async forImport(trx: TransactionClientContract, importId: number, phones: string[]): Promise<Map<string, ImportedValues & { id: number; seen: boolean }>> {
    const found = new Map<string, ImportedValues & { id: number; seen: boolean }>()
    for (const row of await trx.rawQuery(
      `SELECT c.id, c.phone, c.first_name, c.last_name, c.company, c.email, c.tags, c.fields,
         EXISTS (SELECT 1 FROM contact_import_contacts i WHERE i.import_id = ? AND i.contact_id = c.id) AS seen
       FROM contacts c WHERE c.phone IN (SELECT value FROM json_each(?))`,
      [importId, JSON.stringify(phones)]
    )) {
      found.set(row.phone, {
        id: row.id,
        phone: row.phone,
        firstName: row.first_name,
        lastName: row.last_name,
        company: row.company,
        email: row.email,
        tags: JSON.parse(row.tags ?? '[]'),
        fields: JSON.parse(row.fields ?? '{}'),
        seen: Boolean(row.seen),
      })
    }
    return found
  }

  /** The contacts an import wrote (an audience's source), each once, in the caller's transaction. */
  async markImported(trx: TransactionClientContract, importId: number, contactIds: number[]): Promise<void> {
    await trx.rawQuery(`INSERT OR IGNORE INTO contact_import_contacts (import_id, contact_id) SELECT ?, value FROM json_each(?)`, [importId, JSON.stringify(contactIds)])
  }

  /** New contacts from an import (never opted out), in the caller's transaction; answers their ids. */
  async addImported(trx: TransactionClientContract, contacts: ImportedValues[], now: string): Promise<Array<{ id: number; phone: string }>> {
    const created: Array<{ id: number; phone: string }> = []
    for (const chunk of chunksOf(contacts, IMPORT_STATEMENT_ROWS)) {
      const rows = await trx.rawQuery(
        `INSERT INTO contacts (phone, first_name, last_name, company, email, tags, fields, blacklisted, created_at, updated_at)
         VALUES ${chunk.map(() => '(?, ?, ?, ?, ?, ?, ?, 0, ?, ?)').join(', ')} RETURNING id, phone`,
        chunk.flatMap((values): any[] => [values.phone, values.firstName, values.lastName, values.company, values.email, JSON.stringify(values.tags), JSON.stringify(values.fields), now, now])
      )
      created.push(...rows.map((row: { id: number; phone: string }) => ({ id: row.id, phone: row.phone })))
    }
    return created
  }

  /** Contacts an import merged rows into (their opt-out untouched), in the caller's transaction. */
  async changeImported(trx: TransactionClientContract, updates: Array<{ id: number; values: ImportedValues }>, now: string): Promise<void> {
    for (const chunk of chunksOf(updates, IMPORT_STATEMENT_ROWS)) {
      await trx.rawQuery(
        `WITH changed(id, first_name, last_name, company, email, tags, fields) AS (VALUES ${chunk.map(() => '(?, ?, ?, ?, ?, ?, ?)').join(', ')})
         UPDATE contacts SET first_name = changed.first_name, last_name = changed.last_name, company = changed.company, email = changed.email,
           tags = changed.tags, fields = changed.fields, updated_at = ?
         FROM changed WHERE contacts.id = changed.id`,
        [
          ...chunk.flatMap(({ id, values }): any[] => [id, values.firstName, values.lastName, values.company, values.email, JSON.stringify(values.tags), JSON.stringify(values.fields)]),
          now,
        ]
      )
    }
  }
}
