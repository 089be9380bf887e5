/*
 * HTTP server entry point. `npm start` runs the compiled copy (build/bin/server.js), never a
 * TypeScript loader.
 */
import 'reflect-metadata'
import { Ignitor } from '@adonisjs/core'
import { appImporter, prepareRuntime } from '#core/boot/runtime'
import type { Server as HttpsServer } from 'node:https'
import { createGatewayServer, upgradeRoutes } from '#core/http/upgrade_routes'
import { CertificateReloader, describeCertificate, readTlsCredentials, tlsFilesFromEnv } from '#core/http/tls'
import { applyPendingRestore } from '#modules/backups/services/restore_swap'

const APP_ROOT = new URL('../', import.meta.url)

const folder = (() => {
  try {
    return prepareRuntime()
  } catch (error) {
    // One line an operator can act on (a file where a folder should be, no permission), no stack.
    console.error(`gateway cannot start: ${(error as Error).message}`)
    process.exit(1)
  }
})()
// The gateway's own TLS (GATEWAY_TLS_CERT_FILE, GATEWAY_TLS_KEY_FILE) is checked before anything
// else runs, so a bad pair stops it with one line before the database or any job is touched.
const tls = (() => {
  try {
    const files = tlsFilesFromEnv(process.env)
    return files ? { files, credentials: readTlsCredentials(files) } : null
  } catch (error) {
    console.error(`gateway cannot start: ${(error as Error).message}`)
    process.exit(1)
  }
})()
let httpsServer: HttpsServer | null = null

// A prepared restore is swapped in first, before anything opens the database; whatever
// happens, the gateway starts (the backups module logs the outcome once it runs).
await applyPendingRestore(folder.root).catch((error) => console.error('restore at start failed:', error))

new Ignitor(APP_ROOT, { importer: appImporter(APP_ROOT) })
  .tap((app) => {
    app.booting(async () => {
      await import('#start/env')
    })
    // Graceful stop on both signals: stop taking requests, finish in-flight ones, stop jobs,
    // checkpoint and close the database (see the core provider's shutdown).
    app.listen('SIGTERM', () => app.terminate())
    app.listen('SIGINT', () => app.terminate())
    app.ready(async () => {
      if (!tls || !httpsServer) return
      const logger = await app.container.make('logger')
      logger.info(`TLS on: serving https with ${tls.files.certFile} (${describeCertificate(tls.credentials)})`)
      if (tls.credentials.validTo.getTime() < Date.now()) logger.warn('the TLS certificate has expired: phones and browsers refuse it until it is renewed')
      const reloader = new CertificateReloader(httpsServer, tls.files, tls.credentials, { info: (line) => logger.info(line), warn: (line) => logger.warn(line) })
      reloader.start()
      app.terminating(() => reloader.stop())
    })
  })
  .httpServer()
  // The phones' WebSockets share the HTTP server (see UpgradeRoutes); over TLS they are wss.
  .start((handler) => {
    if (!tls) return createGatewayServer(handler, upgradeRoutes)
    httpsServer = createGatewayServer(handler, upgradeRoutes, tls.credentials)
    return httpsServer
  })
  .catch((error) => {
    // One whole line (`gateway start` shows it), then out: a gateway that could not listen must
    // not stay alive holding the database and its jobs.
    console.error(`gateway cannot start: ${startFailure(error)}`)
    process.exit(1)
  })

function startFailure(error: NodeJS.ErrnoException & { port?: number }): string {
  if (error?.code === 'EADDRINUSE') return `port ${error.port ?? process.env.PORT} is already in use (another program listens there; set PORT)`
  if (error?.code === 'EACCES') return `port ${error.port ?? process.env.PORT} may not be used by this user (ports below 1024 need privileges; set PORT)`
  return String(error?.message ?? error).replace(/\s+/g, ' ')
}
