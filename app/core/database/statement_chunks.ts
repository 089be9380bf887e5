/** A batch cut in pieces of `size`: one multi-row statement each, below SQLite's 32,766 bound values. */
export function chunksOf<T>(items: T[], size: number): T[][] {
  const chunks: T[][] = []
  for (let start = 0; start < items.length; start += size) chunks.push(items.slice(start, start + size))
  return chunks
}

/** The `?` of each value, for an `IN (…)` list. */
export const marks = (values: unknown[]) => values.map(() => '?').join(', ')

/** The `(?, ?), (?, ?)` of a `VALUES` list, one tuple a row. */
export const tuples = (rows: unknown[][]) => rows.map((row) => `(${marks(row)})`).join(', ')

/** Runs `statement` once per chunk of `size` items; answers every row the statements returned, in order. */
export async function eachChunk<T, R>(items: T[], size: number, statement: (chunk: T[]) => Promise<R[]>): Promise<R[]> {
  const rows: R[] = []
  for (const chunk of chunksOf(items, size)) rows.push(...(await statement(chunk)))
  return rows
}
