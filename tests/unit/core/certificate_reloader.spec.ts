import { test } from '@japa/runner'
import { X509Certificate } from 'node:crypto'
import { copyFileSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs'
import type { Server } from 'node:https'
import { connect } from 'node:tls'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CertificateReloader, readTlsCredentials, type TlsCredentials, type TlsFiles } from '#core/http/tls'
import { createGatewayServer, UpgradeRoutes } from '#core/http/upgrade_routes'
import { makeCa, makeServerCertificate, OPENSSL_MISSING, opensslMissing, type Pair } from '#tests/helpers/tls_certificates'

const noOpenssl = opensslMissing()

/** The certificate a new connection is served, by its fingerprint, trusting the test's CA only. */
function servedFingerprint(port: number, ca: Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, ca }, () => {
      resolve(socket.getPeerCertificate().fingerprint256)
      socket.end()
    })
    socket.on('error', reject)
  })
}

const fingerprintOf = (file: string) => new X509Certificate(readFileSync(file)).fingerprint256

/**
 * A renewed certificate taken without a restart, on a real https server: the files are replaced
 * the way certbot replaces them (a new file moved into place), and new connections are served
 * the new certificate.
 */
test.group('Certificate reloader', (group) => {
  let root: string
  let caPem: Buffer
  let first: Pair
  let second: Pair
  let files: TlsFiles
  let server: Server
  let inUse: TlsCredentials
  let port: number
  let lines: Array<{ level: 'info' | 'warn'; message: string }>
  const log = { info: (message: string) => lines.push({ level: 'info', message }), warn: (message: string) => lines.push({ level: 'warn', message }) }

  /** Moves a copy of `from` over `to`: a new file in place, as a renewal does. */
  const replace = (from: string, to: string) => {
    copyFileSync(from, `${to}.new`)
    renameSync(`${to}.new`, to)
  }

  group.setup(() => {
    if (noOpenssl) return
    root = mkdtempSync(join(tmpdir(), 'certificate-reloader-'))
    const ca = makeCa(root, 'reload-ca')
    caPem = readFileSync(ca.certFile)
    first = makeServerCertificate(root, 'first', ca, ['IP:127.0.0.1'])
    second = makeServerCertificate(root, 'second', ca, ['IP:127.0.0.1'])
    return () => rmSync(root, { recursive: true, force: true })
  })

  group.each.setup(async () => {
    if (noOpenssl) return async () => {}
    lines = []
    files = { certFile: join(root, 'live.crt'), keyFile: join(root, 'live.key') }
    replace(first.certFile, files.certFile)
    replace(first.keyFile, files.keyFile)
    inUse = readTlsCredentials(files)
    server = createGatewayServer((_request, response) => response.end('ok'), new UpgradeRoutes(), inUse)
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    port = (server.address() as { port: number }).port
    return () => new Promise<void>((resolve) => server.close(() => resolve()))
  })

  test('a renewed pair is served to new connections; a pair that does not match is not taken', async ({ assert }) => {
    const reloader = new CertificateReloader(server, files, inUse, log)
    assert.equal(await servedFingerprint(port, caPem), fingerprintOf(first.certFile))
    assert.equal(reloader.check(), 'unchanged')

    replace(second.certFile, files.certFile)
    replace(second.keyFile, files.keyFile)
    assert.equal(reloader.check(), 'reloaded')
    assert.equal(await servedFingerprint(port, caPem), fingerprintOf(second.certFile))
    assert.equal(lines.at(-1)?.level, 'info')
    assert.match(lines.at(-1)!.message, /^TLS certificate reloaded: CN=second, valid until /)

    // A renewal caught halfway: the new certificate beside the old key. The server keeps serving
    // the pair it had, and the log says why.
    replace(first.certFile, files.certFile)
    assert.equal(reloader.check(), 'kept')
    assert.equal(await servedFingerprint(port, caPem), fingerprintOf(second.certFile))
    assert.equal(lines.at(-1)?.level, 'warn')
    assert.match(lines.at(-1)!.message, /previous certificate stays in use: GATEWAY_TLS_KEY_FILE \S+live\.key is not the private key of the certificate/)

    // Its key arrives: taken at the next look.
    replace(first.keyFile, files.keyFile)
    assert.equal(reloader.check(), 'reloaded')
    assert.equal(await servedFingerprint(port, caPem), fingerprintOf(first.certFile))
    assert.equal(reloader.check(), 'unchanged')

    const keys = [first.keyFile, second.keyFile].map((file) => readFileSync(file, 'utf8').replace(/-----[^-]+-----|\s+/g, ''))
    for (const { message } of lines) for (const key of keys) assert.notInclude(message.replace(/\s+/g, ''), key)
  }).skip(noOpenssl, OPENSSL_MISSING)

  test('once started it looks by itself, and stops looking when stopped', async ({ assert }) => {
    const reloader = new CertificateReloader(server, files, inUse, log, 50)
    reloader.start()
    try {
      replace(second.certFile, files.certFile)
      replace(second.keyFile, files.keyFile)
      const deadline = Date.now() + 5_000
      while ((await servedFingerprint(port, caPem)) !== fingerprintOf(second.certFile)) {
        if (Date.now() > deadline) assert.fail('the renewed certificate was not taken')
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
    } finally {
      reloader.stop()
    }
    replace(first.certFile, files.certFile)
    replace(first.keyFile, files.keyFile)
    await new Promise((resolve) => setTimeout(resolve, 200))
    assert.equal(await servedFingerprint(port, caPem), fingerprintOf(second.certFile))
  }).skip(noOpenssl, OPENSSL_MISSING)
})
