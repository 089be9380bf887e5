import { open, stat } from 'node:fs/promises'
import { ApiError } from '#core/http/api_error'
import { DEFAULT_PAGE_SIZE, type PageRequest } from '#core/pagination/keyset_page'
import type { TechnicalLogLine, TechnicalLogPage } from '#core/schemas'
import { flushLogFile } from '#core/logging/log_file'
import { redactText } from '#core/logging/redaction'

const pinoLevels: Record<number, TechnicalLogLine['level']> = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' }
const CHUNK_BYTES = 64 * 1024
/** At most this much of the file is read per request: a filtered page may then hold fewer lines, with a cursor to go on. */
export const SCAN_BUDGET_BYTES = 4 * 1024 * 1024
const HIDDEN_FIELDS = new Set(['time', 'level', 'msg', 'pid', 'hostname', 'name', 'request_id'])

/**
 * Reads the gateway's own log file newest line first. The cursor is the byte offset where the
 * previous page stopped: lines appended meanwhile land after it, so paging stays exact.
 */
export class TechnicalLog {
  constructor(private file: string) {}

  async page(request: PageRequest & TechnicalLogFilters): Promise<TechnicalLogPage> {
    flushLogFile()
    const limit = request.limit ?? DEFAULT_PAGE_SIZE
    const keep = lineFilter(request)
    let size: number
    try {
      size = (await stat(this.file)).size
    } catch {
      return { data: [], nextCursor: null }
    }
    let end = request.cursor === undefined ? size : decodeOffset(request.cursor)
    if (end > size) end = size

    const handle = await open(this.file, 'r')
    try {
      const lines: TechnicalLogLine[] = []
      let position = end
      let carry = Buffer.alloc(0)
      // Where the oldest line read starts (kept or not): the next page ends there.
      let oldestStart = end
      const examine = (text: string, startsAt: number) => {
        if (!text.trim()) return
        const line = parseLine(text)
        if (keep(line)) lines.push(line)
        oldestStart = startsAt
      }
      // A filter that matches nothing must not read a large file through in one request.
      while (position > 0 && lines.length < limit && end - position < SCAN_BUDGET_BYTES) {
        const start = Math.max(0, position - CHUNK_BYTES)
        const chunk = Buffer.alloc(position - start)
        await handle.read(chunk, 0, chunk.length, start)
        const buffer = Buffer.concat([chunk, carry])
        let lineEnd = buffer.length
        for (let index = buffer.length - 1; index >= 0 && lines.length < limit; index--) {
          if (buffer[index] !== 0x0a) continue
          examine(buffer.subarray(index + 1, lineEnd).toString('utf8'), start + index + 1)
          lineEnd = index
        }
        carry = buffer.subarray(0, lineEnd)
        position = start
        if (position === 0 && lines.length < limit) examine(carry.toString('utf8'), 0)
      }
      return { data: lines, nextCursor: oldestStart > 0 && oldestStart < end ? encodeOffset(oldestStart) : null }
    } finally {
      await handle.close()
    }
  }
}

export const technicalLogLevels = ['debug', 'info', 'warn', 'error'] as const

export interface TechnicalLogFilters {
  /** This level and the more severe ones. */
  level?: (typeof technicalLogLevels)[number]
  /** Words of the line (message, request id or fields), ignoring case, as shown: redacted. */
  search?: string
}

const levelRank: Record<string, number> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 }

function lineFilter(filters: TechnicalLogFilters): (line: TechnicalLogLine) => boolean {
  const minimum = filters.level ? levelRank[filters.level] : 0
  const words = filters.search?.toLowerCase()
  return (line) =>
    (levelRank[line.level] ?? levelRank.info) >= minimum &&
    (!words || `${line.message} ${line.requestId ?? ''} ${JSON.stringify(line.context)}`.toLowerCase().includes(words))
}

function parseLine(text: string): TechnicalLogLine {
  try {
    const entry = JSON.parse(text) as Record<string, unknown>
    const context = Object.fromEntries(Object.entries(entry).filter(([key]) => !HIDDEN_FIELDS.has(key)))
    return {
      at: typeof entry.time === 'string' ? entry.time : typeof entry.time === 'number' ? new Date(entry.time).toISOString() : null,
      // The gateway's logger writes pino's numeric levels only; another value is shown as it is.
      level: pinoLevels[entry.level as number] ?? (String(entry.level ?? 'info') as TechnicalLogLine['level']),
      message: redactText(String(entry.msg ?? '')),
      requestId: typeof entry.request_id === 'string' ? entry.request_id : null,
      context: redactStrings(context) as Record<string, unknown>,
    }
  } catch {
    return { at: null, level: 'info', message: redactText(text), requestId: null, context: {} }
  }
}

/** Masks free text at any depth; numbers and keys are left as they are. */
function redactStrings(value: unknown): unknown {
  if (typeof value === 'string') return redactText(value)
  if (Array.isArray(value)) return value.map(redactStrings)
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, redactStrings(inner)]))
  }
  return value
}

function encodeOffset(offset: number): string {
  return Buffer.from(JSON.stringify({ v: 1, o: offset })).toString('base64url')
}

function decodeOffset(cursor: string): number {
  try {
    const { v, o } = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'))
    if (v === 1 && Number.isSafeInteger(o) && o >= 0) return o
  } catch {}
  throw ApiError.validation('cursor', 'cursor', 'The cursor is not one this gateway gave out')
}
