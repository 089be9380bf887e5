import { closeSync, existsSync, mkdirSync, openSync, renameSync, statSync, writeSync } from 'node:fs'
import { dirname } from 'node:path'
import { DataFolder } from '#core/data_folder/data_folder'

/** Past this size gateway.log is rotated (checked every few minutes, see the core provider). */
export const LOG_FILE_LIMIT_BYTES = 20 * 1024 * 1024
/** Rotated files kept beside gateway.log: gateway.log.1 (newest) to gateway.log.5 (oldest). */
export const ROTATED_LOG_FILES = 5

/** Told when a line could not be written (a full disk), once per stretch of refused writes. */
export type WriteRefusedListener = (error: NodeJS.ErrnoException) => void

/**
 * The gateway's own log file, `<data>/logs/gateway.log`, one JSON line per entry, written
 * synchronously: a line is on disk when the call returns, so a crash loses nothing and
 * GET /logs/technical reads every line logged before it was asked, in order.
 *
 * A line the disk refuses (full, or an I/O error) is dropped and counted, never thrown: a
 * logger that throws stops whatever was logging, and pino's own file stream then raised an
 * unhandled 'error' that ended the process with every request in flight. The first line
 * written again is preceded by one saying how many were dropped and since when.
 */
export class LogFile {
  #fd: number | null = null
  #dropped = 0
  #droppedSince: string | null = null
  /** A refused write may have left half a line: the next one starts on a line of its own. */
  #lineOpen = false
  #onRefused: WriteRefusedListener[] = []

  constructor(readonly path: string) {}

  /** pino's destination interface: one call per serialised line. */
  write(line: string): boolean {
    if (this.#dropped > 0 && !this.#writeNow(this.#droppedNotice())) return this.#drop(line)
    if (this.#dropped > 0) {
      this.#dropped = 0
      this.#droppedSince = null
    }
    return this.#writeNow(line) || this.#drop(line)
  }

  /** Lines are written synchronously: nothing waits in memory. */
  flushSync(): void {}

  /** Starts a new file at the same path (after gateway.log was renamed by the rotation). */
  reopen(): void {
    if (this.#fd !== null) closeSync(this.#fd)
    this.#fd = null
  }

  onWriteRefused(listener: WriteRefusedListener): void {
    this.#onRefused.push(listener)
  }

  /** Lines dropped since the disk last took one. */
  get dropped(): number {
    return this.#dropped
  }

  #writeNow(line: string): boolean {
    const text = this.#lineOpen ? `\n${line}` : line
    try {
      this.#fd ??= this.#open()
      const bytes = Buffer.from(text)
      let written = 0
      while (written < bytes.length) written += writeSync(this.#fd, bytes, written)
      this.#lineOpen = false
      return true
    } catch (error) {
      // Part of the line may be on disk (a short write before the disk filled).
      this.#lineOpen = this.#fd !== null
      if (this.#dropped === 0) for (const listener of this.#onRefused) listener(error as NodeJS.ErrnoException)
      return false
    }
  }

  #drop(_line: string): boolean {
    if (this.#dropped === 0) this.#droppedSince = new Date().toISOString()
    this.#dropped++
    return true
  }

  #droppedNotice(): string {
    return `${JSON.stringify({
      level: 40,
      time: new Date().toISOString(),
      name: 'sms-gateway',
      dropped: this.#dropped,
      droppedSince: this.#droppedSince,
      msg: `${this.#dropped} log lines were dropped since ${this.#droppedSince}: the disk refused them (full?)`,
    })}\n`
  }

  #open(): number {
    mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 })
    return openSync(this.path, 'a', 0o600)
  }
}

let destination: LogFile | undefined

export function logFileDestination(): LogFile {
  destination ??= new LogFile(DataFolder.current().logFile)
  return destination
}

/** Kept for callers that read the file right after logging; every write is already on disk. */
export function flushLogFile() {
  destination?.flushSync()
}

/**
 * Keeps the log from filling the disk: once gateway.log is past `limit`, it becomes
 * gateway.log.1 (the older ones move up one, the oldest beyond ROTATED_LOG_FILES is dropped)
 * and logging goes on in a new gateway.log. Writes are synchronous, so no line is lost or split.
 * Answers whether it rotated.
 */
export function rotateLogFileWhenFull(file = DataFolder.current().logFile, limit = LOG_FILE_LIMIT_BYTES): boolean {
  let size: number
  try {
    size = statSync(file).size
  } catch {
    return false
  }
  if (size < limit) return false
  for (let index = ROTATED_LOG_FILES - 1; index >= 1; index--) {
    if (existsSync(`${file}.${index}`)) renameSync(`${file}.${index}`, `${file}.${index + 1}`)
  }
  renameSync(file, `${file}.1`)
  // The destination still holds the renamed file open: reopening its path starts a new one.
  if (destination && destination.path === file) destination.reopen()
  return true
}
