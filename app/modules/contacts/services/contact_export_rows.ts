import { ContactStore } from '#modules/contacts/stores/contact_store'

/** The contacts export's columns, in order (docs/exports.md, Columns, in this order). */
export const contactExportColumns = ['id', 'phone', 'firstName', 'lastName', 'company', 'email', 'notes', 'tags', 'blacklisted', 'createdAt', 'updatedAt'] as const

export type ContactExportRow = Record<(typeof contactExportColumns)[number], string | boolean | string[] | null>

/** Rows per read: memory holds one chunk, whatever the table's size. */
const CHUNK = 1000

/** A store holds no state: a plain function makes its own (docs/modules.md, Data access). */
const store = new ContactStore()

function shape(row: any): ContactExportRow {
  return {
    id: String(row.id),
    phone: row.phone,
    firstName: row.first_name,
    lastName: row.last_name,
    company: row.company,
    email: row.email,
    notes: row.notes,
    tags: JSON.parse(row.tags ?? '[]'),
    blacklisted: Boolean(row.blacklisted),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  }
}

/**
 * Every contact, oldest to newest, read in keyset chunks of (created_at, id): what the exports
 * module streams as the contacts export.
 */
export async function* contactExportRows(): AsyncGenerator<ContactExportRow> {
  let after: { createdAt: string; id: number } | null = null
  for (;;) {
    const rows = await store.exportChunk(after, CHUNK)
    for (const row of rows) yield shape(row)
    if (rows.length < CHUNK) return
    const last = rows[rows.length - 1]
    after = { createdAt: last.created_at, id: last.id }
  }
}
