import db from '@adonisjs/lucid/services/db'
import type { Logger } from '@adonisjs/core/logger'
import type { Clock } from '#core/time/clock'
import { dateTimeOf, storedDateBound, toIso } from '#core/database/utc_date_time'
import { keysetPage, type PageRequest } from '#core/pagination/keyset_page'
import { likeContaining } from '#core/database/like_pattern'
import type { Caller } from '#core/http/access'
import ActivityEntry, { type ActivityLevel } from '#core/activity/activity_entry'
import type { ActivityActors, ActivityPage } from '#core/schemas'

export interface ActivityRecord {
  level: ActivityLevel
  source: string
  /** What kind of fact: `<thing>.<what happened>` (`apikey.created`, `webhook.disabled`). */
  kind: string
  /** Plain words for the operator. Never SMS text, a full phone number or a key. */
  message: string
  details?: Record<string, unknown>
}

export interface ActivityFilters {
  level?: ActivityLevel
  source?: string
  /** A kind (`webhook.disabled`) or a family of kinds (`webhook`). */
  kind?: string
  /** `account:3`, `api_key:5`, or `system` for the gateway itself. */
  actor?: string
  since?: string
  until?: string
  search?: string
}

/** Who an entry names: `account:3` or `api_key:5`, with the name they had then. */
export interface ActivityAuthor {
  actor: string
  name: string | null
}

/** How an Activity entry names a caller: `account:3`, `api_key:5`. */
export function actorOf(caller: Caller): string {
  return `${caller.type === 'session' ? 'account' : 'api_key'}:${caller.id}`
}

/**
 * The statement of `ActivityLog.actors`: each actor once, with their latest entry (its name then),
 * the latest first. The log is never purged, so the actors are found by seeking from one to the
 * next in `activity_entries_actor_created_at_id_index` and their latest entry by one more seek
 * each: a few seeks per actor, where a `GROUP BY actor` read every entry that has an actor, and
 * each entry's row for its name, at every opening of the filter.
 */
export const ACTORS_STATEMENT = `WITH RECURSIVE actors(actor) AS (
    SELECT MIN(actor) FROM activity_entries WHERE actor IS NOT NULL
    UNION ALL
    SELECT (SELECT MIN(actor) FROM activity_entries WHERE actor > actors.actor) FROM actors WHERE actors.actor IS NOT NULL
  )
  SELECT actors.actor, latest.actor_name FROM actors
  JOIN activity_entries AS latest ON latest.id = (SELECT id FROM activity_entries WHERE actor = actors.actor ORDER BY created_at DESC, id DESC LIMIT 1)
  ORDER BY latest.created_at DESC, latest.id DESC LIMIT 200`

/**
 * The Activity log: modules write what an operator should know; GET /activity reads it.
 *
 * The container's log writes in the name of the gateway itself. A service method that records
 * what a request asked for takes its caller as a parameter and writes with `actingFor(caller)`;
 * the caller is passed along rather than kept in an AsyncLocalStorage, whose promise hooks
 * would slow every request (docs/modules.md, Getting a service).
 */
export class ActivityLog {
  constructor(
    private clock: Clock,
    private logger: Logger,
    private actingAuthor: ActivityAuthor | null = null
  ) {}

  /** The same log, writing in the name of a request's caller (null: the gateway itself). */
  actingFor(caller: Caller | null): ActivityLog {
    return this.actingAs(caller ? { actor: actorOf(caller), name: caller.name ?? null } : null)
  }

  /**
   * The same log, writing in the name of an author recorded earlier (a phone pairs itself with
   * a code: its entry names whoever made the code).
   */
  actingAs(author: ActivityAuthor | null): ActivityLog {
    return new ActivityLog(this.clock, this.logger, author)
  }

  /** Whom this log writes for (null: the gateway itself), to be kept for a later entry. */
  get author(): ActivityAuthor | null {
    return this.actingAuthor
  }

  /** Writes an entry, naming the author it acts for (none: the gateway itself). */
  async record(entry: ActivityRecord): Promise<ActivityEntry> {
    const author = this.actingAuthor
    const row = await ActivityEntry.create({
      level: entry.level,
      source: entry.source,
      kind: entry.kind,
      actor: author?.actor ?? null,
      actorName: author?.name ?? null,
      message: entry.message,
      details: entry.details ?? null,
      createdAt: dateTimeOf(this.clock.now()),
    })
    const logLevel = entry.level === 'warning' ? 'warn' : entry.level
    this.logger[logLevel]({ activity: row.id, source: entry.source, kind: entry.kind }, entry.message)
    return row
  }

  info(source: string, kind: string, message: string, details?: Record<string, unknown>) {
    return this.record({ level: 'info', source, kind, message, details })
  }

  warning(source: string, kind: string, message: string, details?: Record<string, unknown>) {
    return this.record({ level: 'warning', source, kind, message, details })
  }

  error(source: string, kind: string, message: string, details?: Record<string, unknown>) {
    return this.record({ level: 'error', source, kind, message, details })
  }

  /** Newest first. */
  async list(page: PageRequest & ActivityFilters): Promise<ActivityPage> {
    const query = ActivityEntry.query()
    if (page.level) query.where('level', page.level)
    if (page.source) query.where('source', page.source)
    if (page.kind) {
      const kind = page.kind
      query.where((inner) => inner.where('kind', kind).orWhereRaw(`kind LIKE ? ESCAPE '\\'`, [`${kind.replace(/[\\%_]/g, (c) => `\\${c}`)}.%`]))
    }
    if (page.actor) page.actor === 'system' ? query.whereNull('actor') : query.where('actor', page.actor)
    if (page.since) query.where('created_at', '>=', storedDateBound(page.since, 'since'))
    if (page.until) query.where('created_at', '<', storedDateBound(page.until, 'until'))
    // The log is small next to messages: a scan of its messages is fine.
    if (page.search) query.whereRaw(`message LIKE ? ESCAPE '\\'`, [likeContaining(page.search)])
    const result = await keysetPage(query, page, 'created_at', (row) => toIso(row.createdAt))
    return { data: result.data.map((entry) => entry.toResource()), nextCursor: result.nextCursor }
  }

  /** Who appears in the log (for the filter), with the name they had at their latest entry. */
  async actors(): Promise<ActivityActors['data']> {
    const rows = await db.rawQuery(ACTORS_STATEMENT)
    return rows.map((row: { actor: string; actor_name: string | null }) => ({ actor: row.actor, name: row.actor_name }))
  }
}
