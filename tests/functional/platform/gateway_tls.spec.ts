import { test } from '@japa/runner'
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import app from '@adonisjs/core/services/app'
import { freePort, startGateway, stop } from '#tests/helpers/gateway_process'
import { httpsCall, httpsStream, sessionHeaders, type HttpsAnswer } from '#tests/helpers/https_client'
import { encryptKey, makeCa, makeServerCertificate, OPENSSL_MISSING, opensslMissing, type Pair } from '#tests/helpers/tls_certificates'

const noOpenssl = opensslMissing()
const OWNER = { email: 'owner@gateway.test', password: 'a long passphrase', name: 'Owner' }

/** Polls every 200 ms: each look over https is a new handshake. */
async function eventually(condition: () => Promise<boolean>, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time')
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}

/** The PEM body of a key: what must never reach a log line. */
const keyBody = (file: string) => readFileSync(file, 'utf8').replace(/-----[^-]+-----/g, '').replace(/\s+/g, '')

/**
 * The gateway serving https itself (GATEWAY_TLS_CERT_FILE, GATEWAY_TLS_KEY_FILE) as its own
 * process, with a CA and a certificate made by openssl at test time, reached the way a phone that
 * has that CA installed reaches it.
 */
test.group('The gateway’s own TLS', (group) => {
  let root: string
  let ca: Pair
  let caPem: Buffer
  let server: Pair

  group.setup(() => {
    if (noOpenssl) return
    root = mkdtempSync(join(tmpdir(), 'gateway-tls-'))
    ca = makeCa(root, 'test-ca')
    caPem = readFileSync(ca.certFile)
    server = makeServerCertificate(root, 'gateway', ca, ['IP:127.0.0.1', 'DNS:localhost'])
    return () => rmSync(root, { recursive: true, force: true })
  })

  test('https on its port: /health, the dashboard’s session, the SMSGate app’s pairing and event stream, our agent over wss', async ({ assert }) => {
    const dataDir = join(root, 'data-serving')
    const port = await freePort()
    const base = `https://127.0.0.1:${port}`
    const { child, output } = await startGateway(dataDir, {
      port,
      ca: caPem,
      env: { GATEWAY_TLS_CERT_FILE: server.certFile, GATEWAY_TLS_KEY_FILE: server.keyFile, GATEWAY_PUBLIC_URL: base },
    })
    let agent: ReturnType<typeof spawn> | null = null
    try {
      const health = await httpsCall(`${base}/health`, { ca: caPem })
      assert.equal(health.status, 200)
      assert.deepEqual(health.json, { status: 'ok', storage: 'ok', database: 'ok' })

      // Plain http on the same port: the connection is closed, nothing is answered.
      await assert.rejects(() => fetch(`http://127.0.0.1:${port}/health`))
      // A client that does not trust the CA refuses the certificate.
      const untrusted = await httpsCall(`${base}/health`, { ca: null }).then(
        () => null,
        (error: NodeJS.ErrnoException) => error.code
      )
      assert.match(String(untrusted), /UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_GET_ISSUER_CERT/)

      // The dashboard's first account: over https its session cookies are Secure.
      const setup = await httpsCall(`${base}/api/v1/auth/setup`, { ca: caPem, method: 'POST', body: OWNER })
      assert.equal(setup.status, 201, setup.text)
      const cookies = ([] as string[]).concat(setup.headers['set-cookie'] ?? [])
      assert.isTrue(cookies.some((cookie) => cookie.startsWith('gateway_session=')), cookies.join('\n'))
      for (const cookie of cookies) assert.match(cookie, /;\s*Secure/i, cookie)
      const session = sessionHeaders(setup)
      const key = await httpsCall(`${base}/api/v1/api-keys`, { ca: caPem, method: 'POST', headers: session, body: { name: 'TLS test', scope: 'admin' } })
      assert.equal(key.status, 201, key.text)
      const apiKey = { 'x-api-key': key.json.secret as string }

      // Our agent, as an operator runs it: paired over https, its socket over wss (the CA given
      // to Node with NODE_EXTRA_CA_CERTS), and a send carried out through it.
      const agentCode = await httpsCall(`${base}/api/v1/devices/pairing-codes`, { ca: caPem, method: 'POST', headers: session })
      assert.equal(agentCode.status, 201, agentCode.text)
      let agentOutput = ''
      agent = spawn(
        process.execPath,
        ['--import=ts-node-maintained/register/esm', 'agent/bin/phone_agent.ts', '--gateway', base, '--pair', agentCode.json.code, '--name', 'Agent over wss'],
        { cwd: app.appRoot.pathname, env: { ...process.env, NODE_EXTRA_CA_CERTS: ca.certFile }, stdio: ['ignore', 'pipe', 'pipe'] }
      )
      agent.stdout!.on('data', (chunk) => (agentOutput += chunk))
      agent.stderr!.on('data', (chunk) => (agentOutput += chunk))
      await eventually(async () => agentOutput.includes('connected') || agent!.exitCode !== null, 60_000)
      assert.include(agentOutput, 'connected', agentOutput)
      const viaAgent = await httpsCall(`${base}/api/v1/messages`, { ca: caPem, method: 'POST', headers: apiKey, body: { to: '+33612345678', body: 'Over wss' } })
      assert.equal(viaAgent.status, 202, viaAgent.text)
      const agentMessage = viaAgent.json.accepted[0].id
      await eventually(async () => ['sent', 'delivered'].includes((await httpsCall(`${base}/api/v1/messages/${agentMessage}`, { ca: caPem, headers: apiKey })).json?.status), 30_000)
      const agentExit = new Promise((resolve) => agent!.once('exit', resolve))
      agent.kill('SIGTERM')
      await agentExit
      agent = null

      // The SMSGate app: a code whose apiUrl is https, pairing over it, its event stream over TLS.
      const appCode = await httpsCall(`${base}/api/v1/devices/pairing-codes`, { ca: caPem, method: 'POST', headers: session, body: { app: 'smsgate' } })
      assert.equal(appCode.status, 201, appCode.text)
      assert.equal(appCode.json.apiUrl, `${base}/api/mobile/v1`)
      const registered = await httpsCall(`${appCode.json.apiUrl}/device`, {
        ca: caPem,
        method: 'POST',
        headers: { authorization: `Code ${appCode.json.code}` },
        body: { name: 'samsung/a52qnsxx', simCards: [] },
      })
      assert.equal(registered.status, 201, registered.text)
      const bearer = { authorization: `Bearer ${registered.json.token}` }
      const stream = await httpsStream(`${appCode.json.apiUrl}/events`, { ca: caPem, headers: bearer })
      assert.equal(stream.statusCode, 200)
      assert.match(String(stream.headers['content-type']), /^text\/event-stream/)
      let events = ''
      stream.setEncoding('utf8')
      stream.on('data', (chunk) => (events += chunk))
      // With the agent gone, the app's phone is the one connected: the send is handed to it.
      await eventually(async () => {
        const devices = (await httpsCall(`${base}/api/v1/devices`, { ca: caPem, headers: apiKey })).json.data as Array<{ kind: string; status: string }>
        return devices.some((device) => device.kind === 'smsgate' && device.status === 'online') && devices.every((device) => device.kind !== 'agent' || device.status === 'offline')
      }, 30_000)
      const viaApp = await httpsCall(`${base}/api/v1/messages`, { ca: caPem, method: 'POST', headers: apiKey, body: { to: '+33612345679', body: 'Over the event stream' } })
      assert.equal(viaApp.status, 202, viaApp.text)
      await eventually(async () => events.includes('event: MessageEnqueued'), 30_000)
      const listed: HttpsAnswer = await httpsCall(`${appCode.json.apiUrl}/message`, { ca: caPem, headers: bearer })
      assert.equal(listed.status, 200)
      assert.deepEqual(
        // The app knows an order by its message id and hand-out (docs/smsgate.md, Orders).
        listed.json.map((item: { id: string }) => item.id.split('-')[0]),
        [viaApp.json.accepted[0].id]
      )
      stream.destroy()

      // The log says TLS is on, with the certificate's file, and never holds the key.
      assert.include(output(), `TLS on: serving https with ${server.certFile}`)
      assert.notInclude(output().replace(/\s+/g, ''), keyBody(server.keyFile))
    } finally {
      agent?.kill('SIGKILL')
      assert.equal(await stop(child, 'SIGTERM'), 0)
    }
    assert.notInclude(readFileSync(join(dataDir, 'logs', 'gateway.log'), 'utf8').replace(/\s+/g, ''), keyBody(server.keyFile))
  })
    .skip(noOpenssl, OPENSSL_MISSING)
    .timeout(180_000)

  test('each bad configuration stops the start with one line naming the variable, before the database is opened', async ({ assert }) => {
    const other = makeServerCertificate(root, 'other', ca, ['IP:127.0.0.1'])
    const notPem = join(root, 'not-a-certificate.pem')
    writeFileSync(notPem, 'this is not a certificate\n')
    const folderAsKey = join(root, 'a-folder.key')
    mkdirSync(folderAsKey, { recursive: true })
    const cases: Array<[string, NodeJS.ProcessEnv, RegExp]> = [
      ['certificate only', { GATEWAY_TLS_CERT_FILE: server.certFile }, /^GATEWAY_TLS_CERT_FILE is set but GATEWAY_TLS_KEY_FILE is not: set both/],
      ['key only', { GATEWAY_TLS_KEY_FILE: server.keyFile }, /^GATEWAY_TLS_KEY_FILE is set but GATEWAY_TLS_CERT_FILE is not: set both/],
      ['no such certificate file', { GATEWAY_TLS_CERT_FILE: join(root, 'missing.crt'), GATEWAY_TLS_KEY_FILE: server.keyFile }, /^GATEWAY_TLS_CERT_FILE \S+missing\.crt cannot be read \(ENOENT\)$/],
      ['a folder as the key', { GATEWAY_TLS_CERT_FILE: server.certFile, GATEWAY_TLS_KEY_FILE: folderAsKey }, /^GATEWAY_TLS_KEY_FILE \S+a-folder\.key cannot be read \(EISDIR\)$/],
      ['not a certificate', { GATEWAY_TLS_CERT_FILE: notPem, GATEWAY_TLS_KEY_FILE: server.keyFile }, /^GATEWAY_TLS_CERT_FILE \S+not-a-certificate\.pem holds no PEM certificate$/],
      ['not a key', { GATEWAY_TLS_CERT_FILE: server.certFile, GATEWAY_TLS_KEY_FILE: server.certFile }, /^GATEWAY_TLS_KEY_FILE \S+gateway\.crt holds no PEM private key$/],
      ['another certificate’s key', { GATEWAY_TLS_CERT_FILE: server.certFile, GATEWAY_TLS_KEY_FILE: other.keyFile }, /^GATEWAY_TLS_KEY_FILE \S+other\.key is not the private key of the certificate in GATEWAY_TLS_CERT_FILE \S+gateway\.crt$/],
      ['a key behind a passphrase', { GATEWAY_TLS_CERT_FILE: server.certFile, GATEWAY_TLS_KEY_FILE: encryptKey(root, server.keyFile) }, /^GATEWAY_TLS_KEY_FILE \S+encrypted\.key is protected by a passphrase/],
    ]
    for (const [name, tls, expected] of cases) {
      const dataDir = join(root, `data-refused-${cases.findIndex((entry) => entry[0] === name)}`)
      const env: NodeJS.ProcessEnv = { ...process.env, GATEWAY_DATA_DIR: dataDir, PORT: String(await freePort()), HOST: '127.0.0.1', NODE_ENV: 'production', ...tls }
      delete env.APP_KEY
      const run = spawnSync(process.execPath, ['--import=ts-node-maintained/register/esm', 'bin/server.ts'], { cwd: app.appRoot.pathname, env, encoding: 'utf8', timeout: 60_000 })
      const lines = `${run.stdout}${run.stderr}`
        .trim()
        .split('\n')
        .filter((line) => !/ExperimentalWarning|--trace-warnings|Unknown user config/.test(line))
      assert.equal(run.status, 1, `${name}: ${lines.join('\n')}`)
      assert.lengthOf(lines, 1, `${name}: ${lines.join('\n')}`)
      const [line] = lines
      assert.isTrue(line.startsWith('gateway cannot start: '), `${name}: ${line}`)
      assert.match(line.slice('gateway cannot start: '.length), expected, name)
      assert.isFalse(existsSync(join(dataDir, 'gateway.db')), `${name}: the database was opened`)
    }
  })
    .skip(noOpenssl, OPENSSL_MISSING)
    .timeout(240_000)

  test('`gateway start` waits for /health over https; without GATEWAY_PUBLIC_URL the app’s apiUrl is the https address it was reached at', async ({ assert }) => {
    const dataDir = join(root, 'data-service')
    const port = await freePort()
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      GATEWAY_DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      GATEWAY_TLS_CERT_FILE: server.certFile,
      GATEWAY_TLS_KEY_FILE: server.keyFile,
    }
    delete env.APP_KEY
    delete env.NODE_ENV
    delete env.GATEWAY_PUBLIC_URL
    const gateway = (command: string) => spawnSync(process.execPath, [join(app.appRoot.pathname, 'bin', 'gateway.js'), command], { cwd: root, env, encoding: 'utf8', timeout: 120_000 })
    try {
      const started = gateway('start')
      assert.equal(started.status, 0, `${started.stdout}${started.stderr}`)
      const base = `https://127.0.0.1:${port}`
      assert.equal((await httpsCall(`${base}/health`, { ca: caPem })).status, 200)
      const setup = await httpsCall(`${base}/api/v1/auth/setup`, { ca: caPem, method: 'POST', body: OWNER })
      assert.equal(setup.status, 201, setup.text)
      const appCode = await httpsCall(`${base}/api/v1/devices/pairing-codes`, { ca: caPem, method: 'POST', headers: sessionHeaders(setup), body: { app: 'smsgate' } })
      assert.equal(appCode.status, 201, appCode.text)
      assert.equal(appCode.json.apiUrl, `${base}/api/mobile/v1`)
    } finally {
      const stopped = gateway('stop')
      assert.equal(stopped.status, 0, `${stopped.stdout}${stopped.stderr}`)
    }
  })
    .skip(noOpenssl, OPENSSL_MISSING)
    .timeout(180_000)
})
