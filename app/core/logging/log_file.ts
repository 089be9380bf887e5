import pino from 'pino'
import { DataFolder } from '#core/data_folder/data_folder'

let destination: ReturnType<typeof pino.destination> | undefined

/**
 * The gateway's own log file, `<data>/logs/gateway.log`, one JSON line per entry. Written
 * asynchronously; readers flush it first so they see every line logged before they asked.
 */
export function logFileDestination() {
  destination ??= pino.destination({ dest: DataFolder.current().logFile, mkdir: true, sync: false })
  return destination
}

export function flushLogFile() {
  try {
    destination?.flushSync()
  } catch {
    // Nothing written yet (the stream is still opening): nothing to flush.
  }
}
