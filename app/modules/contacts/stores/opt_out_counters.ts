import db from '@adonisjs/lucid/services/db'

/** Resolution of the opt-out counters: a quarter hour (migration 0020). */
export const OPT_OUT_SLOT_SECONDS = 900

export interface OptChangeRow {
  bucket: number
  optedOut: number
  optedIn: number
}

/**
 * The `contact_opt_changes` table (docs/modules.md, Data access), in SQL text: numbers opted out
 * and back in, read from the counters the database keeps as contacts.blacklisted is set and
 * cleared (kept by the triggers of migration 0020, docs/statistics.md), one statement whatever the
 * range: a `VALUES` list of buckets joined to the counters' key. The cost follows the number of
 * counter rows in the range, not the number of contacts.
 */
export class OptOutCounters {
  /** Opt-outs and opt-ins per bucket between consecutive boundaries (buckets without any are absent). */
  async optChanges(boundaries: Date[]): Promise<OptChangeRow[]> {
    if (boundaries.length < 2) return []
    const slots = boundaries.map((boundary) => Math.floor(boundary.getTime() / 1000 / OPT_OUT_SLOT_SECONDS) * OPT_OUT_SLOT_SECONDS)
    const buckets = slots.slice(0, -1).map((from, index) => [index, from, slots[index + 1]])
    // CROSS JOIN keeps the buckets outside: one seek into the counters' key per bucket.
    const rows = await db.rawQuery(
      `WITH buckets(position, start_slot, end_slot) AS (VALUES ${buckets.map(() => '(?, ?, ?)').join(', ')})
       SELECT buckets.position AS bucket, SUM(c.opted_out) AS opted_out, SUM(c.opted_in) AS opted_in
         FROM buckets CROSS JOIN contact_opt_changes c
        WHERE c.slot >= buckets.start_slot AND c.slot < buckets.end_slot
        GROUP BY 1`,
      buckets.flat()
    )
    return rows.map((row: any) => ({ bucket: Number(row.bucket), optedOut: Number(row.opted_out), optedIn: Number(row.opted_in) }))
  }
}
