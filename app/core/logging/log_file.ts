import pino from 'pino'
import { DataFolder } from '#core/data_folder/data_folder'

let destination: ReturnType<typeof pino.destination> | undefined

/**
 * The gateway's own log file, `<data>/logs/gateway.log`, one JSON line per entry. Written
 * synchronously: a line is on disk when the call returns, so a crash loses nothing and
 * GET /logs/technical reads every line logged before it was asked, in order. (An asynchronous
 * destination keeps a write in flight that a flush cannot wait for.)
 */
export function logFileDestination() {
  destination ??= pino.destination({ dest: DataFolder.current().logFile, mkdir: true, sync: true })
  return destination
}

export function flushLogFile() {
  try {
    destination?.flushSync()
  } catch {
    // Nothing written yet (the stream is still opening): nothing to flush.
  }
}
