/*
 * Ace entry point (migrations, the OpenAPI dump and other operator commands).
 */
import 'reflect-metadata'
import { Ignitor, prettyPrintError } from '@adonisjs/core'
import { randomBytes } from 'node:crypto'
import { appImporter, prepareRuntime } from '#core/boot/runtime'

const APP_ROOT = new URL('../', import.meta.url)

/**
 * Commands that never read the gateway's data: building, listing, scaffolding, and the entry
 * points that start their own process (`test`, `serve`), which prepare their own data folder.
 * They must not create ./data and a master key in whatever folder a developer runs them.
 */
function needsNoData(argv: string[]): boolean {
  const command = argv.find((argument) => !argument.startsWith('-'))
  if (command === undefined) return true
  return ['build', 'test', 'serve', 'list', 'add', 'configure', 'inspect:rcfile', 'env:add'].includes(command) || command.startsWith('make:')
}

try {
  if (needsNoData(process.argv.slice(2))) {
    // The framework still wants an app key to boot; nothing is encrypted with it here.
    process.env.APP_KEY ||= randomBytes(32).toString('base64url')
    process.env.NODE_ENV ||= 'development'
  } else {
    prepareRuntime({ nodeEnv: 'development' })
  }
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
