import env from '#start/env'
import app from '@adonisjs/core/services/app'
import { defineConfig } from '@adonisjs/core/logger'
import pino from 'pino'
import { logFileDestination } from '#core/logging/log_file'
import { REDACTED, redactText, redactedPaths } from '#core/logging/redaction'

/**
 * One JSON line per entry, written to `<data>/logs/gateway.log` (read back by
 * GET /logs/technical) and, for the server, to standard output for the service manager. Ace
 * commands keep standard output for their own output (openapi:dump prints JSON there).
 */
const streams: pino.StreamEntry[] = [{ stream: logFileDestination(), level: 'trace' }]
if (app.getEnvironment() === 'web') streams.push({ stream: guardedStandardOutput(), level: 'trace' })

const loggerConfig = defineConfig({
  default: 'app',
  loggers: {
    app: {
      enabled: true,
      name: 'sms-gateway',
      level: env.get('LOG_LEVEL', 'info'),
      timestamp: 'iso',
      desination: pino.multistream(streams),
      redact: { paths: redactedPaths, censor: REDACTED },
      hooks: {
        // Free text can carry what field redaction cannot see: mask it on the way in.
        logMethod(args, method) {
          return method.apply(
            this,
            args.map((arg) => (typeof arg === 'string' ? redactText(arg) : arg)) as Parameters<typeof method>
          )
        },
      },
    },
  },
})

export default loggerConfig

/**
 * Standard output as a log destination that never stops the process: under `gateway start` it
 * is a file on the data folder's disk (logs/console.log), and a write refused there (a full
 * disk) or a closed pipe must cost the line, not the gateway.
 */
function guardedStandardOutput(): pino.DestinationStream {
  process.stdout.on('error', () => {})
  return {
    write(line: string) {
      try {
        process.stdout.write(line)
      } catch {}
    },
  }
}

declare module '@adonisjs/core/types' {
  export interface LoggersList extends InferLoggers<typeof loggerConfig> {}
}
