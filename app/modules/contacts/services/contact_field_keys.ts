import db from '@adonisjs/lucid/services/db'

/**
 * The custom field keys contacts use, with how many contacts have each (template editors offer
 * them as variables). One pass over the contacts' JSON: fine for a contact book, and read only
 * when an editor opens.
 */
export async function contactFieldKeys(): Promise<Array<{ key: string; contacts: number }>> {
  const rows = await db.rawQuery(
    `SELECT field.key AS key, COUNT(*) AS contacts FROM contacts, json_each(contacts.fields) AS field
     WHERE contacts.fields != '{}' GROUP BY field.key ORDER BY contacts DESC, field.key ASC LIMIT 200`
  )
  return rows.map((row: { key: string; contacts: number }) => ({ key: row.key, contacts: Number(row.contacts) }))
}
