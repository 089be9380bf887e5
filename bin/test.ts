/*
 * Test entry point: every run gets a fresh temporary data folder (real SQLite, real master key)
 * and a free loopback port, so tests never touch ./data or each other.
 */
import 'reflect-metadata'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Ignitor, prettyPrintError } from '@adonisjs/core'
import { configure, processCLIArgs, run } from '@japa/runner'
import { appImporter, prepareRuntime } from '#core/boot/runtime'

process.env.NODE_ENV = 'test'
const dataDir = mkdtempSync(join(tmpdir(), 'gateway-test-'))
process.env.GATEWAY_DATA_DIR = dataDir
process.env.LOG_LEVEL ||= 'debug'
// Assigned, not defaulted: `node ace test` runs this file from Ace, whose own start already
// filled PORT and HOST with the server defaults (3000 on every interface). Tests listen on a
// free loopback port only.
const port = await freeLoopbackPort()
process.env.PORT = String(port)
process.env.HOST = '127.0.0.1'
prepareRuntime()
// Short links and phones reach the test server here.
process.env.GATEWAY_PUBLIC_URL = `http://127.0.0.1:${port}`

const APP_ROOT = new URL('../', import.meta.url)

new Ignitor(APP_ROOT, { importer: appImporter(APP_ROOT) })
  .tap((app) => {
    app.booting(async () => {
      await import('#start/env')
    })
    app.listen('SIGTERM', () => app.terminate())
    app.listenIf(app.managedByPm2, 'SIGINT', () => app.terminate())
  })
  .testRunner()
  .configure(async (app) => {
    const { runnerHooks, ...config } = await import('../tests/bootstrap.js')
    processCLIArgs(process.argv.splice(2))
    configure({
      ...app.rcFile.tests,
      ...config,
      ...{
        setup: runnerHooks.setup,
        teardown: [...runnerHooks.teardown, () => rmSync(dataDir, { recursive: true, force: true })],
      },
    })
  })
  .run(() => run())
  .catch((error) => {
    process.exitCode = 1
    prettyPrintError(error)
  })

function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address()
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0))
    })
  })
}
