/*
 * Ace entry point (migrations, the OpenAPI dump and other operator commands).
 */
import 'reflect-metadata'
import { Ignitor, prettyPrintError } from '@adonisjs/core'
import { appImporter, prepareRuntime } from '#core/boot/runtime'

const APP_ROOT = new URL('../', import.meta.url)

try {
  prepareRuntime({ nodeEnv: 'development' })
} catch (error) {
  console.error(`gateway cannot run this command: ${(error as Error).message}`)
  process.exit(1)
}

new Ignitor(APP_ROOT, { importer: appImporter(APP_ROOT) })
  .tap((app) => {
    app.booting(async () => {
      await import('#start/env')
    })
    app.listen('SIGTERM', () => app.terminate())
    app.listenIf(app.managedByPm2, 'SIGINT', () => app.terminate())
  })
  .ace()
  .handle(process.argv.splice(2))
  .catch((error) => {
    process.exitCode = 1
    prettyPrintError(error)
  })
