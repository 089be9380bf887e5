import pino from 'pino'
import { existsSync, renameSync, statSync } from 'node:fs'
import { DataFolder } from '#core/data_folder/data_folder'

let destination: ReturnType<typeof pino.destination> | undefined
let destinationFile: string | undefined

/** Past this size gateway.log is rotated (checked every few minutes, see the core provider). */
export const LOG_FILE_LIMIT_BYTES = 20 * 1024 * 1024
/** Rotated files kept beside gateway.log: gateway.log.1 (newest) to gateway.log.5 (oldest). */
export const ROTATED_LOG_FILES = 5

/**
 * The gateway's own log file, `<data>/logs/gateway.log`, one JSON line per entry. Written
 * synchronously: a line is on disk when the call returns, so a crash loses nothing and
 * GET /logs/technical reads every line logged before it was asked, in order. (An asynchronous
 * destination keeps a write in flight that a flush cannot wait for.)
 */
export function logFileDestination() {
  if (!destination) {
    destinationFile = DataFolder.current().logFile
    destination = pino.destination({ dest: destinationFile, mkdir: true, sync: true })
  }
  return destination
}

export function flushLogFile() {
  try {
    destination?.flushSync()
  } catch {
    // Nothing written yet (the stream is still opening): nothing to flush.
  }
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
  flushLogFile()
  for (let index = ROTATED_LOG_FILES - 1; index >= 1; index--) {
    if (existsSync(`${file}.${index}`)) renameSync(`${file}.${index}`, `${file}.${index + 1}`)
  }
  renameSync(file, `${file}.1`)
  // The destination still holds the renamed file open: reopening its path starts a new one.
  if (destination && destinationFile === file) destination.reopen()
  return true
}
