import { BaseSchema } from '@adonisjs/lucid/schema'

/**
 * Counters for the statistics endpoints (docs/statistics.md), kept by SQLite triggers on
 * `messages` like those of migration 0011, so that every path that changes a message keeps them
 * exact and a restored older backup gets them from the backfills below:
 *
 * - `message_volume` is rebuilt with two more key columns, the SIM slot (-1 for none yet) and the
 *   campaign (0 for none), so volume can be filtered and broken down by SIM and campaign. Same quarter-hour slots
 *   of creation, one column per status.
 * - `message_failures`: failed messages (status `failed`) by error code, per quarter hour of
 *   creation, category, phone, SIM and campaign.
 * - `message_latency`: a histogram of fixed latency buckets, per hour of creation, phone and
 *   SIM, for two stages: accept (created_at, or scheduled_at when later) to sent (sent_at), and
 *   sent to delivered (delivered_at). A message is counted in a stage once both its times are
 *   known. Per hour rather than quarter hour: a histogram has many rows per slot, and an hour
 *   keeps a month of them small enough to read in a few tens of milliseconds.
 *
 * Times are UTC ISO strings; slots are UTC epoch seconds.
 */

/** The spec's message statuses; an inbound SMS is `delivered`. */
const statuses = ['queued', 'dispatched', 'sent', 'delivered', 'failed', 'pending_quota_exceeded', 'paused', 'cancelled']

/**
 * Upper bounds (seconds, excluded) of the latency buckets; bucket i holds [bounds[i-1], bounds[i]),
 * the last bucket (index = bounds.length) everything from one day up. Kept equal to
 * LATENCY_BOUNDS_SECONDS in app/modules/statistics/services/message_counters.ts.
 */
const latencyBounds = [1, 2, 3, 5, 7, 10, 15, 20, 30, 45, 60, 90, 120, 180, 300, 450, 600, 900, 1200, 1800, 2700, 3600, 5400, 7200, 10800, 21600, 43200, 86400]

type Row = 'NEW' | 'OLD'
const epoch = (expression: string) => `CAST(strftime('%s', ${expression}) AS INTEGER)`
const slotOf = (row: Row, seconds: number) => `${epoch(`${row}.created_at`)} / ${seconds} * ${seconds}`

/** Columns of a counter's key and the expression of each from a message row. */
interface Key {
  column: string
  of: (row: Row) => string
}
const keyColumn = (column: string, of: (row: Row) => string): Key => ({ column, of })
const volumeKey = (withSimAndCampaign: boolean): Key[] => [
  keyColumn('slot', (row) => slotOf(row, 900)),
  keyColumn('direction', (row) => `${row}.direction`),
  keyColumn('category', (row) => `${row}.category`),
  keyColumn('device_id', (row) => `COALESCE(${row}.device_id, '')`),
  ...(withSimAndCampaign
    ? [keyColumn('sim_slot', (row) => `COALESCE(${row}.sim_slot, -1)`), keyColumn('campaign_id', (row) => `COALESCE(${row}.campaign_id, 0)`)]
    : []),
]
const failureKey: Key[] = [
  keyColumn('slot', (row) => slotOf(row, 900)),
  keyColumn('category', (row) => `${row}.category`),
  keyColumn('device_id', (row) => `COALESCE(${row}.device_id, '')`),
  keyColumn('sim_slot', (row) => `COALESCE(${row}.sim_slot, -1)`),
  keyColumn('campaign_id', (row) => `COALESCE(${row}.campaign_id, 0)`),
  keyColumn('error_code', (row) => `COALESCE(${row}.error_code, '')`),
]
const acceptedAt = (row: Row) => `CASE WHEN ${row}.scheduled_at > ${row}.created_at THEN ${row}.scheduled_at ELSE ${row}.created_at END`
// Rounded to the millisecond: julianday's doubles make 2 s come out as 1.99995 s.
const seconds = (from: string, to: string) => `ROUND((julianday(${to}) - julianday(${from})) * 86400.0, 3)`
// The latency is computed once, in a one-row subquery: written into each WHEN of the CASE, SQLite
// worked it out (two julianday parses) once per bound, up to 29 times per message sent.
const bucketOf = (latency: string) =>
  `(SELECT CASE ${latencyBounds.map((bound, index) => `WHEN latency < ${bound} THEN ${index}`).join(' ')} ELSE ${latencyBounds.length} END
      FROM (SELECT ${latency} AS latency))`
const latencyKey = (stage: 'sent' | 'delivered'): Key[] => [
  keyColumn('slot', (row) => slotOf(row, 3600)),
  keyColumn('device_id', (row) => `COALESCE(${row}.device_id, '')`),
  keyColumn('sim_slot', (row) => `COALESCE(${row}.sim_slot, -1)`),
  keyColumn('stage', () => `'${stage}'`),
  keyColumn('bucket', (row) =>
    bucketOf(stage === 'sent' ? seconds(acceptedAt(row), `${row}.sent_at`) : seconds(`${row}.sent_at`, `${row}.delivered_at`))
  ),
]
const latencyCounted = (row: Row, stage: 'sent' | 'delivered') =>
  stage === 'sent'
    ? `${row}.direction = 'out' AND ${row}.sent_at IS NOT NULL`
    : `${row}.direction = 'out' AND ${row}.sent_at IS NOT NULL AND ${row}.delivered_at IS NOT NULL`

const columnsOf = (key: Key[]) => key.map((part) => part.column).join(', ')
const whereKey = (key: Key[], row: Row) => key.map((part) => `${part.column} = ${part.of(row)}`).join(' AND ')

/** A counter table with a `count` column: one more (when `condition` holds for the row). */
const countOne = (table: string, key: Key[], row: Row, condition: string) =>
  `INSERT INTO ${table} (${columnsOf(key)}, count) SELECT ${key.map((part) => part.of(row)).join(', ')}, 1 WHERE ${condition}
     ON CONFLICT (${columnsOf(key)}) DO UPDATE SET count = count + 1;`
const uncountOne = (table: string, key: Key[], row: Row, condition: string) =>
  `UPDATE ${table} SET count = count - 1 WHERE (${condition}) AND ${whereKey(key, row)};`

const volumeIn = (key: Key[], row: Row) =>
  `INSERT INTO message_volume (${columnsOf(key)}, ${statuses.join(', ')})
     VALUES (${key.map((part) => part.of(row)).join(', ')}, ${statuses.map((status) => `${row}.status = '${status}'`).join(', ')})
     ON CONFLICT (${columnsOf(key)}) DO UPDATE SET ${statuses.map((status) => `${status} = ${status} + excluded.${status}`).join(', ')};`
const volumeOut = (key: Key[], row: Row) =>
  `UPDATE message_volume SET ${statuses.map((status) => `${status} = ${status} - (${row}.status = '${status}')`).join(', ')}
     WHERE ${whereKey(key, row)};`
const changed = (columns: string[]) => columns.map((column) => `OLD.${column} IS NOT NEW.${column}`).join(' OR ')

/** message_volume and its triggers, keyed as in 0011 (`withSimAndCampaign` false) or as here. */
function createVolume(withSimAndCampaign: boolean): string[] {
  const key = volumeKey(withSimAndCampaign)
  const keySources = ['created_at', 'direction', 'category', 'device_id', ...(withSimAndCampaign ? ['sim_slot', 'campaign_id'] : [])]
  const extra = withSimAndCampaign ? 'sim_slot INTEGER NOT NULL,\n      campaign_id INTEGER NOT NULL,' : ''
  return [
    // WITHOUT ROWID: the key is the table, so a range of slots is one seek and a sequential read.
    // '', -1 and 0 are "none" (NULLs never conflict in a unique key).
    `CREATE TABLE message_volume (
      slot INTEGER NOT NULL,
      direction TEXT NOT NULL,
      category TEXT NOT NULL,
      device_id TEXT NOT NULL,
      ${extra}
      ${statuses.map((status) => `${status} INTEGER NOT NULL DEFAULT 0`).join(',\n      ')},
      PRIMARY KEY (${columnsOf(key)})
    ) WITHOUT ROWID`,
    `INSERT INTO message_volume (${columnsOf(key)}, ${statuses.join(', ')})
      SELECT ${key.map((part) => part.of('NEW').replaceAll('NEW.', '')).join(', ')}, ${statuses.map((status) => `SUM(status = '${status}')`).join(', ')}
        FROM messages GROUP BY ${key.map((_, index) => index + 1).join(', ')}`,
    `CREATE TRIGGER message_volume_on_insert AFTER INSERT ON messages BEGIN ${volumeIn(key, 'NEW')} END`,
    `CREATE TRIGGER message_volume_on_delete AFTER DELETE ON messages BEGIN ${volumeOut(key, 'OLD')} END`,
    // A change of status only: one row updated in place.
    `CREATE TRIGGER message_volume_on_status AFTER UPDATE OF status ON messages
      WHEN OLD.status IS NOT NEW.status AND NOT (${changed(keySources)})
      BEGIN
        UPDATE message_volume SET ${statuses.map((status) => `${status} = ${status} + (NEW.status = '${status}') - (OLD.status = '${status}')`).join(', ')}
         WHERE ${whereKey(key, 'OLD')};
      END`,
    // A message moved to another row (ordered to a phone, requeued off it): out of one, into the other.
    `CREATE TRIGGER message_volume_on_move AFTER UPDATE OF ${keySources.join(', ')} ON messages
      WHEN ${changed(keySources)}
      BEGIN ${volumeOut(key, 'OLD')} ${volumeIn(key, 'NEW')} END`,
  ]
}

const failed = (row: Row) => `${row}.status = 'failed'`
const failureSources = ['status', 'error_code', 'created_at', 'category', 'device_id', 'sim_slot', 'campaign_id']
const latencySources = ['sent_at', 'delivered_at', 'created_at', 'scheduled_at', 'direction', 'device_id', 'sim_slot']

const triggers = [
  'message_volume_on_move',
  'message_volume_on_status',
  'message_volume_on_delete',
  'message_volume_on_insert',
  'message_failures_on_insert',
  'message_failures_on_delete',
  'message_failures_on_update',
  'message_latency_on_insert',
  'message_latency_on_delete',
  'message_latency_on_update',
]

export default class extends BaseSchema {
  async up() {
    for (const trigger of triggers.slice(0, 4)) this.schema.raw(`DROP TRIGGER IF EXISTS ${trigger}`)
    this.schema.raw('DROP TABLE IF EXISTS message_volume')
    for (const statement of createVolume(true)) this.schema.raw(statement)

    this.schema.raw(`CREATE TABLE message_failures (
      slot INTEGER NOT NULL,
      category TEXT NOT NULL,
      device_id TEXT NOT NULL,
      sim_slot INTEGER NOT NULL,
      campaign_id INTEGER NOT NULL,
      error_code TEXT NOT NULL,
      count INTEGER NOT NULL DEFAULT 0,
      PRIMARY KEY (${columnsOf(failureKey)})
    ) WITHOUT ROWID`)
    this.schema.raw(`INSERT INTO message_failures (${columnsOf(failureKey)}, count)
      SELECT ${failureKey.map((part) => part.of('NEW').replaceAll('NEW.', '')).join(', ')}, COUNT(*)
        FROM messages WHERE status = 'failed' GROUP BY 1, 2, 3, 4, 5, 6`)
    this.schema.raw(`CREATE TRIGGER message_failures_on_insert AFTER INSERT ON messages WHEN ${failed('NEW')}
      BEGIN ${countOne('message_failures', failureKey, 'NEW', '1')} END`)
    this.schema.raw(`CREATE TRIGGER message_failures_on_delete AFTER DELETE ON messages WHEN ${failed('OLD')}
      BEGIN ${uncountOne('message_failures', failureKey, 'OLD', '1')} END`)
    this.schema.raw(`CREATE TRIGGER message_failures_on_update AFTER UPDATE OF ${failureSources.join(', ')} ON messages
      WHEN (${failed('OLD')} OR ${failed('NEW')}) AND (${changed(failureSources)})
      BEGIN
        ${uncountOne('message_failures', failureKey, 'OLD', failed('OLD'))}
        ${countOne('message_failures', failureKey, 'NEW', failed('NEW'))}
      END`)

    const latencyColumns = columnsOf(latencyKey('sent'))
    this.schema.raw(`CREATE TABLE message_latency (
      slot INTEGER NOT NULL,
      device_id TEXT NOT NULL,
      sim_slot INTEGER NOT NULL,
      stage TEXT NOT NULL,
      bucket INTEGER NOT NULL,
      count INTEGER NOT NULL DEFAULT 0,
      PRIMARY KEY (${latencyColumns})
    ) WITHOUT ROWID`)
    for (const stage of ['sent', 'delivered'] as const) {
      const key = latencyKey(stage)
      this.schema.raw(`INSERT INTO message_latency (${latencyColumns}, count)
        SELECT ${key.map((part) => part.of('NEW').replaceAll('NEW.', '')).join(', ')}, COUNT(*)
          FROM messages WHERE ${latencyCounted('NEW', stage).replaceAll('NEW.', '')} GROUP BY 1, 2, 3, 4, 5`)
    }
    const counted = (row: Row) => `${latencyCounted(row, 'sent')}`
    const both = (action: (stage: 'sent' | 'delivered') => string) => `${action('sent')} ${action('delivered')}`
    this.schema.raw(`CREATE TRIGGER message_latency_on_insert AFTER INSERT ON messages WHEN ${counted('NEW')}
      BEGIN ${both((stage) => countOne('message_latency', latencyKey(stage), 'NEW', latencyCounted('NEW', stage)))} END`)
    this.schema.raw(`CREATE TRIGGER message_latency_on_delete AFTER DELETE ON messages WHEN ${counted('OLD')}
      BEGIN ${both((stage) => uncountOne('message_latency', latencyKey(stage), 'OLD', latencyCounted('OLD', stage)))} END`)
    // Only messages that have been sent: a dispatch (phone and SIM chosen, nothing sent yet) skips it.
    this.schema.raw(`CREATE TRIGGER message_latency_on_update AFTER UPDATE OF ${latencySources.join(', ')} ON messages
      WHEN (${counted('OLD')} OR ${counted('NEW')}) AND (${changed(latencySources)})
      BEGIN
        ${both((stage) => uncountOne('message_latency', latencyKey(stage), 'OLD', latencyCounted('OLD', stage)))}
        ${both((stage) => countOne('message_latency', latencyKey(stage), 'NEW', latencyCounted('NEW', stage)))}
      END`)
  }

  async down() {
    for (const trigger of triggers) this.schema.raw(`DROP TRIGGER IF EXISTS ${trigger}`)
    this.schema.raw('DROP TABLE IF EXISTS message_latency')
    this.schema.raw('DROP TABLE IF EXISTS message_failures')
    this.schema.raw('DROP TABLE IF EXISTS message_volume')
    // Back to the counters of 0011.
    for (const statement of createVolume(false)) this.schema.raw(statement)
  }
}
