import db from '@adonisjs/lucid/services/db'
import { messageStatuses, type messageCategories, type MessageStatus } from '#modules/messages/public'

/**
 * The statistics module's own tables, the message counters (`message_volume`, `message_failures`,
 * `message_latency`), read between bucket boundaries (docs/modules.md, Data access). SQL text,
 * one statement per figure: a `VALUES` list of buckets joined to the counters' key, which the
 * query builder does not write. The cost follows the number of counter rows in the range, not
 * the number of messages. SQLite triggers on `messages` keep them as messages change; the tables
 * were made by migrations 0011 and 0019, the triggers are defined by this module's migration 0024
 * (docs/statistics.md). The click and opt-out counters are the links and contacts modules', read
 * through their public files.
 */

type MessageCategory = (typeof messageCategories)[number]
type MessageDirection = 'out' | 'in'

/** Resolution of the counters: volume and failures per quarter hour, latency per hour. */
export const COUNTER_SLOT_SECONDS = { volume: 900, failures: 900, latency: 3600 } as const

/**
 * Upper bounds (seconds, excluded) of the latency histogram's buckets, as the triggers of
 * migration 0024 write them (it keeps its own copy): bucket i holds latencies in
 * [bounds[i - 1], bounds[i]), the last one (index bounds.length) a day or more.
 */
export const LATENCY_BOUNDS_SECONDS = [
  1, 2, 3, 5, 7, 10, 15, 20, 30, 45, 60, 90, 120, 180, 300, 450, 600, 900, 1200, 1800, 2700, 3600, 5400, 7200, 10800, 21600, 43200, 86400,
] as const

export interface CounterFilters {
  direction?: MessageDirection
  category?: MessageCategory
  deviceId?: string
  /** 0 or 1 (the phone's SIM slot). */
  simSlot?: number
  campaignId?: number
}

/** What volume can be broken down by. */
export type VolumeGroupBy = 'device' | 'sim' | 'campaign' | 'category'

/** One group of a breakdown: the key's fields that apply (null: no phone, SIM or campaign). */
export interface VolumeGroupKey {
  deviceId?: string | null
  simSlot?: number | null
  campaignId?: number | null
  category?: MessageCategory
}

export interface VolumeRow {
  bucket: number
  direction: MessageDirection
  group: VolumeGroupKey
  counts: Record<MessageStatus, number>
}

export interface FailureRow {
  bucket: number
  errorCode: string | null
  count: number
}

export type LatencyStage = 'sent' | 'delivered'

export interface LatencyRow {
  bucket: number
  stage: LatencyStage
  /** Index into LATENCY_BOUNDS_SECONDS (its length: a day or more). */
  latencyBucket: number
  count: number
}

const groupColumns: Record<VolumeGroupBy, string[]> = {
  device: ['device_id'],
  sim: ['device_id', 'sim_slot'],
  campaign: ['campaign_id'],
  category: ['category'],
}

type Filter = [column: string, value: string | number]

/** The filters a counter table is keyed by, as [column, value] (values as stored: none is ''/-1/0). */
function filtersOf(filters: CounterFilters, columns: Array<keyof CounterFilters>): Filter[] {
  const column: Record<keyof CounterFilters, string> = {
    direction: 'direction',
    category: 'category',
    deviceId: 'device_id',
    simSlot: 'sim_slot',
    campaignId: 'campaign_id',
  }
  return columns.filter((name) => filters[name] !== undefined).map((name) => [column[name], filters[name]!])
}

/**
 * Sums `sums` of counter `table` per bucket between consecutive `boundaries` (bucket i is
 * [boundaries[i], boundaries[i + 1])), each boundary rounded down to the table's slot, grouped by
 * `group` columns (answered as `g_<column>`). Buckets without rows are absent.
 */
async function sumPerBucket(options: {
  table: string
  slotSeconds: number
  boundaries: Date[]
  filters?: Filter[]
  group?: string[]
  sums: string[]
}): Promise<any[]> {
  const { table, slotSeconds, boundaries, filters = [], group = [], sums } = options
  if (boundaries.length < 2) return []
  const slots = boundaries.map((boundary) => Math.floor(boundary.getTime() / 1000 / slotSeconds) * slotSeconds)
  const buckets = slots.slice(0, -1).map((from, index) => [index, from, slots[index + 1]])
  // CROSS JOIN keeps the buckets outside: one seek into the counters' key per bucket. Left to
  // itself, the planner may scan every counter once per bucket when a filter is added.
  const rows = await db.rawQuery(
    `WITH buckets(position, start_slot, end_slot) AS (VALUES ${buckets.map(() => '(?, ?, ?)').join(', ')})
     SELECT buckets.position AS bucket${group.map((column) => `, c.${column} AS g_${column}`).join('')},
            ${sums.map((column) => `SUM(c.${column}) AS ${column}`).join(', ')}
       FROM buckets CROSS JOIN ${table} c
      WHERE c.slot >= buckets.start_slot AND c.slot < buckets.end_slot ${filters.map(([column]) => `AND c.${column} = ?`).join(' ')}
      GROUP BY ${['bucket', ...group].map((_, index) => index + 1).join(', ')}`,
    [...buckets.flat(), ...filters.map(([, value]) => value)]
  )
  return rows
}

/** Figures summed per bucket, each read from its counters (the statistics endpoints). */
export class MessageCounterStore {
  /** Messages created per bucket by direction and current status, optionally per phone, SIM, campaign or category. */
  async volume(boundaries: Date[], filters: CounterFilters = {}, groupBy?: VolumeGroupBy): Promise<VolumeRow[]> {
    const group = groupBy ? groupColumns[groupBy] : []
    const rows = await sumPerBucket({
      table: 'message_volume',
      slotSeconds: COUNTER_SLOT_SECONDS.volume,
      boundaries,
      filters: filtersOf(filters, ['direction', 'category', 'deviceId', 'simSlot', 'campaignId']),
      group: ['direction', ...group],
      sums: [...messageStatuses],
    })
    return rows.map((row: any) => ({
      bucket: Number(row.bucket),
      direction: row.g_direction,
      group: groupKeyOf(row, group),
      counts: Object.fromEntries(messageStatuses.map((status) => [status, Number(row[status])])) as Record<MessageStatus, number>,
    }))
  }

  /** Failed messages (status failed) created per bucket, by error code. */
  async failures(boundaries: Date[], filters: CounterFilters = {}): Promise<FailureRow[]> {
    const rows = await sumPerBucket({
      table: 'message_failures',
      slotSeconds: COUNTER_SLOT_SECONDS.failures,
      boundaries,
      filters: filtersOf(filters, ['category', 'deviceId', 'simSlot', 'campaignId']),
      group: ['error_code'],
      sums: ['count'],
    })
    return rows
      .map((row: any) => ({ bucket: Number(row.bucket), errorCode: row.g_error_code === '' ? null : row.g_error_code, count: Number(row.count) }))
      .filter((row: FailureRow) => row.count > 0)
  }

  /** Latency histograms of messages created per bucket (boundaries rounded down to the hour). */
  async latency(boundaries: Date[], filters: Pick<CounterFilters, 'deviceId' | 'simSlot'> = {}): Promise<LatencyRow[]> {
    const rows = await sumPerBucket({
      table: 'message_latency',
      slotSeconds: COUNTER_SLOT_SECONDS.latency,
      boundaries,
      filters: filtersOf(filters, ['deviceId', 'simSlot']),
      group: ['stage', 'bucket'],
      sums: ['count'],
    })
    return rows
      .map((row: any) => ({ bucket: Number(row.bucket), stage: row.g_stage, latencyBucket: Number(row.g_bucket), count: Number(row.count) }))
      .filter((row: LatencyRow) => row.count > 0)
  }
}

function groupKeyOf(row: any, columns: string[]): VolumeGroupKey {
  const key: VolumeGroupKey = {}
  for (const column of columns) {
    const value = row[`g_${column}`]
    if (column === 'device_id') key.deviceId = value === '' ? null : value
    if (column === 'sim_slot') key.simSlot = Number(value) < 0 ? null : Number(value)
    if (column === 'campaign_id') key.campaignId = Number(value) === 0 ? null : Number(value)
    if (column === 'category') key.category = value
  }
  return key
}
