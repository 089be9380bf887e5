import vine from '@vinejs/vine'
import type { ModelQueryBuilderContract, LucidModel } from '@adonisjs/lucid/types/model'
import type { DatabaseQueryBuilderContract } from '@adonisjs/lucid/types/querybuilder'
import { ApiError } from '#core/http/api_error'
import { documentedAs, isoDateTimeSchema } from '#core/contract/schemas'

/** Page size 1 to 200, default 50 (docs/api-conventions.md, Lists). */
export const DEFAULT_PAGE_SIZE = 50
export const MAX_PAGE_SIZE = 200

/** Query fields every list accepts; spread into a module's query validator. */
export const pageQueryFields = {
  limit: vine.number().withoutDecimals().range([1, MAX_PAGE_SIZE]).optional(),
  cursor: vine.string().maxLength(512).optional(),
}

/** A list's date bound (`since`, `until`): an ISO 8601 date or date-time, compared by `storedDateBound`. */
export const dateBoundField = () =>
  vine
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/)
    .use(documentedAs(isoDateTimeSchema))

export interface PageRequest {
  limit?: number
  cursor?: string
}

export interface Page<T> {
  data: T[]
  nextCursor: string | null
}

interface CursorPosition {
  sortValue: string | number
  id: number
}

/**
 * An opaque keyset cursor: the sort value and id of the last row served. Rows inserted while a
 * client pages are never skipped or repeated, unlike an offset.
 */
export function encodeCursor(position: CursorPosition): string {
  return Buffer.from(JSON.stringify({ v: 1, s: position.sortValue, i: position.id })).toString('base64url')
}

export function decodeCursor(cursor: string): CursorPosition {
  const invalid = () => ApiError.validation('cursor', 'cursor', 'The cursor is not one this gateway gave out')
  let parsed: unknown
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'))
  } catch {
    throw invalid()
  }
  const { v, s, i } = (parsed ?? {}) as Record<string, unknown>
  if (v !== 1 || !(typeof s === 'string' || typeof s === 'number') || !Number.isSafeInteger(i)) throw invalid()
  return { sortValue: s, id: i as number }
}

/**
 * Newest first by `sortColumn`, ties broken by id, which the table must index together.
 * `sortKey` reads the same value from a fetched row for the next cursor. A model's query answers
 * models; a query of the table itself (`db.from(table)`, its `table` given) answers its rows.
 */
export async function keysetPage<Model extends LucidModel>(
  query: ModelQueryBuilderContract<Model, InstanceType<Model>>,
  page: PageRequest,
  sortColumn: string,
  sortKey: (row: InstanceType<Model>) => string | number
): Promise<Page<InstanceType<Model>>>
export async function keysetPage<Row extends { id: number }>(
  query: DatabaseQueryBuilderContract<Row>,
  page: PageRequest,
  sortColumn: string,
  sortKey: (row: Row) => string | number,
  table: string
): Promise<Page<Row>>
export async function keysetPage(query: any, page: PageRequest, sortColumn: string, sortKey: (row: any) => string | number, table?: string): Promise<Page<any>> {
  const limit = page.limit ?? DEFAULT_PAGE_SIZE
  const qualifier = table ?? query.model.table
  if (page.cursor) {
    const after = decodeCursor(page.cursor)
    // A row-value comparison, not `a < x OR (a = x AND id < y)`: SQLite seeks the (sortColumn,
    // id) index with it, so the last page costs what the first does; the OR form scans.
    query.whereRaw(`(${qualifier}.${sortColumn}, ${qualifier}.id) < (?, ?)`, [after.sortValue, after.id])
  }
  const rows = await query.orderBy(sortColumn, 'desc').orderBy('id', 'desc').limit(limit + 1)
  const data = rows.slice(0, limit)
  const last = data.at(-1)
  const id = (row: any) => Number(table ? row.id : row.$primaryKeyValue)
  return {
    data,
    nextCursor: rows.length > limit && last ? encodeCursor({ sortValue: sortKey(last), id: id(last) }) : null,
  }
}

/** The query of a list that takes nothing but a page: `limit` and `cursor`. */
export const pageQueryValidator = vine.compile(vine.object({ ...pageQueryFields }))
