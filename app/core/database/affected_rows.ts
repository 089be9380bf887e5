/**
 * How many rows an update or delete touched. Knex answers a number for SQLite, but its types
 * (and some of its clients) say an array: this reads either.
 */
export function affectedRows(result: unknown): number {
  return Number(Array.isArray(result) ? result[0] : result) || 0
}
