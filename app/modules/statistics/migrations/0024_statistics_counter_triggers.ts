import { BaseSchema } from '@adonisjs/lucid/schema'

/**
 * The triggers on `messages` that keep the statistics module's counters (`message_volume`,
 * `message_failures`, `message_latency`; docs/statistics.md, How it stays fast), dropped and
 * created again exactly as migrations 0011 and 0019 of database/migrations left them: the same
 * names, the same SQL, character for character, so no count changes.
 *
 * Why it exists: the counters are the statistics module's tables, so the definitions of what
 * keeps them live with their owner, here, rather than in the closed folder of the first
 * migrations (whose files never change: docs/adding-a-module.md, Migrations). A change to the
 * counters from now on is a migration of this folder, next to this one.
 *
 * `messages` is the messages module's table, made by database/migrations, which a module's
 * migration may rely on; the triggers only read the changed row (NEW, OLD) and write the
 * counters (docs/modules.md, The counters' triggers). Tables and their rows are untouched: the
 * backfills of 0011 and 0019 already ran on every database, a restored older backup included.
 */

/** The message statuses the volume counts, one column each; an inbound SMS is `delivered`. */
const statuses = ['queued', 'dispatched', 'sent', 'delivered', 'failed', 'pending_quota_exceeded', 'paused', 'cancelled']

/**
 * Upper bounds (seconds, excluded) of the latency buckets; bucket i holds [bounds[i-1], bounds[i]),
 * the last bucket (index = bounds.length) everything from one day up. Kept equal to
 * LATENCY_BOUNDS_SECONDS in app/modules/statistics/stores/message_counter_store.ts.
 */
const latencyBounds = [1, 2, 3, 5, 7, 10, 15, 20, 30, 45, 60, 90, 120, 180, 300, 450, 600, 900, 1200, 1800, 2700, 3600, 5400, 7200, 10800, 21600, 43200, 86400]

type Row = 'NEW' | 'OLD'
type Stage = 'sent' | 'delivered'
const epoch = (expression: string) => `CAST(strftime('%s', ${expression}) AS INTEGER)`
const slotOf = (row: Row, seconds: number) => `${epoch(`${row}.created_at`)} / ${seconds} * ${seconds}`

/** A column of a counter's key and its expression from a message row. */
interface Key {
  column: string
  of: (row: Row) => string
}
const keyColumn = (column: string, of: (row: Row) => string): Key => ({ column, of })
const volumeKey: Key[] = [
  keyColumn('slot', (row) => slotOf(row, 900)),
  keyColumn('direction', (row) => `${row}.direction`),
  keyColumn('category', (row) => `${row}.category`),
  keyColumn('device_id', (row) => `COALESCE(${row}.device_id, '')`),
  keyColumn('sim_slot', (row) => `COALESCE(${row}.sim_slot, -1)`),
  keyColumn('campaign_id', (row) => `COALESCE(${row}.campaign_id, 0)`),
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
// would work it out (two julianday parses) once per bound, up to 29 times per message sent.
const bucketOf = (latency: string) =>
  `(SELECT CASE ${latencyBounds.map((bound, index) => `WHEN latency < ${bound} THEN ${index}`).join(' ')} ELSE ${latencyBounds.length} END
      FROM (SELECT ${latency} AS latency))`
const latencyKey = (stage: Stage): Key[] => [
  keyColumn('slot', (row) => slotOf(row, 3600)),
  keyColumn('device_id', (row) => `COALESCE(${row}.device_id, '')`),
  keyColumn('sim_slot', (row) => `COALESCE(${row}.sim_slot, -1)`),
  keyColumn('stage', () => `'${stage}'`),
  keyColumn('bucket', (row) =>
    bucketOf(stage === 'sent' ? seconds(acceptedAt(row), `${row}.sent_at`) : seconds(`${row}.sent_at`, `${row}.delivered_at`))
  ),
]
const latencyCounted = (row: Row, stage: Stage) =>
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

const volumeIn = (row: Row) =>
  `INSERT INTO message_volume (${columnsOf(volumeKey)}, ${statuses.join(', ')})
     VALUES (${volumeKey.map((part) => part.of(row)).join(', ')}, ${statuses.map((status) => `${row}.status = '${status}'`).join(', ')})
     ON CONFLICT (${columnsOf(volumeKey)}) DO UPDATE SET ${statuses.map((status) => `${status} = ${status} + excluded.${status}`).join(', ')};`
const volumeOut = (row: Row) =>
  `UPDATE message_volume SET ${statuses.map((status) => `${status} = ${status} - (${row}.status = '${status}')`).join(', ')}
     WHERE ${whereKey(volumeKey, row)};`
const changed = (columns: string[]) => columns.map((column) => `OLD.${column} IS NOT NEW.${column}`).join(' OR ')

const volumeSources = ['created_at', 'direction', 'category', 'device_id', 'sim_slot', 'campaign_id']
const failed = (row: Row) => `${row}.status = 'failed'`
const failureSources = ['status', 'error_code', 'created_at', 'category', 'device_id', 'sim_slot', 'campaign_id']
const latencySources = ['sent_at', 'delivered_at', 'created_at', 'scheduled_at', 'direction', 'device_id', 'sim_slot']
const latencyOf = (row: Row) => latencyCounted(row, 'sent')
const bothStages = (action: (stage: Stage) => string) => `${action('sent')} ${action('delivered')}`

/** Every counter trigger, in the order 0011 and 0019 created them. */
const counterTriggers: Array<{ name: string; sql: string }> = [
  {
    name: 'message_volume_on_insert',
    sql: `CREATE TRIGGER message_volume_on_insert AFTER INSERT ON messages BEGIN ${volumeIn('NEW')} END`,
  },
  {
    name: 'message_volume_on_delete',
    sql: `CREATE TRIGGER message_volume_on_delete AFTER DELETE ON messages BEGIN ${volumeOut('OLD')} END`,
  },
  // A change of status only: one row updated in place.
  {
    name: 'message_volume_on_status',
    sql: `CREATE TRIGGER message_volume_on_status AFTER UPDATE OF status ON messages
      WHEN OLD.status IS NOT NEW.status AND NOT (${changed(volumeSources)})
      BEGIN
        UPDATE message_volume SET ${statuses.map((status) => `${status} = ${status} + (NEW.status = '${status}') - (OLD.status = '${status}')`).join(', ')}
         WHERE ${whereKey(volumeKey, 'OLD')};
      END`,
  },
  // A message moved to another row (ordered to a phone, requeued off it): out of one, into the other.
  {
    name: 'message_volume_on_move',
    sql: `CREATE TRIGGER message_volume_on_move AFTER UPDATE OF ${volumeSources.join(', ')} ON messages
      WHEN ${changed(volumeSources)}
      BEGIN ${volumeOut('OLD')} ${volumeIn('NEW')} END`,
  },
  {
    name: 'message_failures_on_insert',
    sql: `CREATE TRIGGER message_failures_on_insert AFTER INSERT ON messages WHEN ${failed('NEW')}
      BEGIN ${countOne('message_failures', failureKey, 'NEW', '1')} END`,
  },
  {
    name: 'message_failures_on_delete',
    sql: `CREATE TRIGGER message_failures_on_delete AFTER DELETE ON messages WHEN ${failed('OLD')}
      BEGIN ${uncountOne('message_failures', failureKey, 'OLD', '1')} END`,
  },
  {
    name: 'message_failures_on_update',
    sql: `CREATE TRIGGER message_failures_on_update AFTER UPDATE OF ${failureSources.join(', ')} ON messages
      WHEN (${failed('OLD')} OR ${failed('NEW')}) AND (${changed(failureSources)})
      BEGIN
        ${uncountOne('message_failures', failureKey, 'OLD', failed('OLD'))}
        ${countOne('message_failures', failureKey, 'NEW', failed('NEW'))}
      END`,
  },
  {
    name: 'message_latency_on_insert',
    sql: `CREATE TRIGGER message_latency_on_insert AFTER INSERT ON messages WHEN ${latencyOf('NEW')}
      BEGIN ${bothStages((stage) => countOne('message_latency', latencyKey(stage), 'NEW', latencyCounted('NEW', stage)))} END`,
  },
  {
    name: 'message_latency_on_delete',
    sql: `CREATE TRIGGER message_latency_on_delete AFTER DELETE ON messages WHEN ${latencyOf('OLD')}
      BEGIN ${bothStages((stage) => uncountOne('message_latency', latencyKey(stage), 'OLD', latencyCounted('OLD', stage)))} END`,
  },
  // Only messages that have been sent: a dispatch (phone and SIM chosen, nothing sent yet) skips it.
  {
    name: 'message_latency_on_update',
    sql: `CREATE TRIGGER message_latency_on_update AFTER UPDATE OF ${latencySources.join(', ')} ON messages
      WHEN (${latencyOf('OLD')} OR ${latencyOf('NEW')}) AND (${changed(latencySources)})
      BEGIN
        ${bothStages((stage) => uncountOne('message_latency', latencyKey(stage), 'OLD', latencyCounted('OLD', stage)))}
        ${bothStages((stage) => countOne('message_latency', latencyKey(stage), 'NEW', latencyCounted('NEW', stage)))}
      END`,
  },
]

export default class extends BaseSchema {
  async up() {
    // Inside the migration's transaction: no write to messages can fall between drop and create.
    for (const { name } of counterTriggers) this.schema.raw(`DROP TRIGGER IF EXISTS ${name}`)
    for (const { sql } of counterTriggers) this.schema.raw(sql)
  }

  /** Nothing to undo: the triggers before this migration were these same ones. */
  async down() {}
}
