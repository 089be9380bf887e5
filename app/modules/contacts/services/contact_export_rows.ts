import db from '@adonisjs/lucid/services/db'

/** The contacts export's columns, in order (docs/exports.md, Columns, in this order). */
export const contactExportColumns = ['id', 'phone', 'firstName', 'lastName', 'company', 'email', 'notes', 'tags', 'blacklisted', 'createdAt', 'updatedAt'] as const

export type ContactExportRow = Record<(typeof contactExportColumns)[number], string | boolean | string[] | null>

/** Rows per read: memory holds one chunk, whatever the table's size. */
const CHUNK = 1000

const COLUMNS = ['id', 'phone', 'first_name', 'last_name', 'company', 'email', 'notes', 'tags', 'blacklisted', 'created_at', 'updated_at']

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
    const query = db.from('contacts').select(COLUMNS).orderBy('created_at').orderBy('id').limit(CHUNK)
    if (after) query.whereRaw('(created_at, id) > (?, ?)', [after.createdAt, after.id])
    const rows: any[] = await query
    for (const row of rows) yield shape(row)
    if (rows.length < CHUNK) return
    const last = rows[rows.length - 1]
    after = { createdAt: last.created_at, id: last.id }
  }
}
