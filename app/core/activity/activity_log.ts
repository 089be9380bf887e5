import type { Logger } from '@adonisjs/core/logger'
import type { Clock } from '#core/time/clock'
import { dateTimeOf, storedDateBound, toIso } from '#core/database/utc_date_time'
import { keysetPage, type PageRequest } from '#core/pagination/keyset_page'
import ActivityEntry, { type ActivityLevel } from '#core/activity/activity_entry'

export interface ActivityRecord {
  level: ActivityLevel
  source: string
  /** Plain words for the operator. Never SMS text, a full phone number or a key. */
  message: string
  details?: Record<string, unknown>
}

export interface ActivityFilters {
  level?: ActivityLevel
  source?: string
  since?: string
  until?: string
  search?: string
}


/** The Activity log: modules write what an operator should know; GET /activity reads it. */
export class ActivityLog {
  constructor(
    private clock: Clock,
    private logger: Logger
  ) {}

  async record(entry: ActivityRecord): Promise<ActivityEntry> {
    const row = await ActivityEntry.create({
      level: entry.level,
      source: entry.source,
      message: entry.message,
      details: entry.details ?? null,
      createdAt: dateTimeOf(this.clock.now()),
    })
    const logLevel = entry.level === 'warning' ? 'warn' : entry.level
    this.logger[logLevel]({ activity: row.id, source: entry.source }, entry.message)
    return row
  }

  info(source: string, message: string, details?: Record<string, unknown>) {
    return this.record({ level: 'info', source, message, details })
  }

  warning(source: string, message: string, details?: Record<string, unknown>) {
    return this.record({ level: 'warning', source, message, details })
  }

  error(source: string, message: string, details?: Record<string, unknown>) {
    return this.record({ level: 'error', source, message, details })
  }

  /** Newest first. */
  list(page: PageRequest & ActivityFilters) {
    const query = ActivityEntry.query()
    if (page.level) query.where('level', page.level)
    if (page.source) query.where('source', page.source)
    if (page.since) query.where('created_at', '>=', storedDateBound(page.since, 'since'))
    if (page.until) query.where('created_at', '<', storedDateBound(page.until, 'until'))
    // The log is small next to messages: a scan of its messages is fine.
    if (page.search) query.whereRaw(`message LIKE ? ESCAPE '\\'`, [`%${page.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`])
    return keysetPage(query, page, 'created_at', (row) => toIso(row.createdAt))
  }
}
