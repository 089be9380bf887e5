import { column } from '@adonisjs/lucid/orm'

/** SQLite has no boolean type: stored 0/1, served as true/false. */
export function booleanColumn(options: { columnName?: string } = {}) {
  return column({
    ...options,
    prepare: (value: boolean) => (value ? 1 : 0),
    consume: (value: number | boolean | null) => Boolean(value),
  })
}

/** A JSON array or object kept in a text column. */
export function jsonColumn(options: { columnName?: string } = {}) {
  return column({
    ...options,
    prepare: (value: unknown) => JSON.stringify(value ?? null),
    consume: (value: string | null) => (value ? JSON.parse(value) : null),
  })
}

/** An integer row id served as a string, as the API shows every id. */
export function idColumn() {
  return column({ isPrimary: true, serialize: (value: number) => String(value) })
}

/** A reference to another row's integer id, served as a string (null stays null). */
export function referenceColumn(options: { columnName?: string } = {}) {
  return column({ ...options, serialize: (value: number | null) => (value === null || value === undefined ? null : String(value)) })
}
