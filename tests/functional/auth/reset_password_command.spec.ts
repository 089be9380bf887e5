import { test } from '@japa/runner'
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import app from '@adonisjs/core/services/app'
import hash from '@adonisjs/core/services/hash'
import { query, startGateway, stop } from '#tests/helpers/gateway_process'
import { Browser } from './browser.js'

const OWNER = { email: 'owner@reset.test', password: 'the forgotten passphrase', name: 'Owner' }

interface Run {
  status: number | null
  output: string
  lines: string[]
}

/**
 * `node ace user:reset-password` as an operator runs it on the machine: a real process on a real
 * data folder, beside a gateway that is itself a real process (then stopped).
 */
test.group('node ace user:reset-password (real processes, real data folder)', (group) => {
  let root: string
  let dataDir: string
  let gateway: { child: ChildProcess; port: number } | null = null
  let origin: string

  group.setup(async () => {
    root = mkdtempSync(join(tmpdir(), 'reset-password-'))
    dataDir = join(root, 'data')
    const started = await startGateway(dataDir)
    gateway = started
    origin = `http://127.0.0.1:${started.port}`
    const setUp = await new Browser(origin).call('POST', '/api/v1/auth/setup', OWNER)
    if (setUp.status !== 201) throw new Error(`setup answered ${setUp.status}`)
    return async () => {
      if (gateway) await stop(gateway.child, 'SIGTERM')
      rmSync(root, { recursive: true, force: true })
    }
  })

  function finish(child: ChildProcess): Promise<Run> {
    let output = ''
    child.stdout!.on('data', (chunk) => (output += chunk))
    child.stderr!.on('data', (chunk) => (output += chunk))
    const killer = setTimeout(() => child.kill('SIGKILL'), 60_000)
    return new Promise((resolve) =>
      child.once('exit', (status) => {
        clearTimeout(killer)
        // Colours on a terminal; what is said is compared without them.
        const plain = output.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '')
        resolve({ status, output: plain, lines: plain.trim().split(/\r?\n/).filter(Boolean) })
      })
    )
  }

  /** Standard input is a pipe holding `input`, or nothing at all (`null`: /dev/null, not a terminal). */
  function reset(args: string[], input: string | null, folder = dataDir): Promise<Run> {
    const child = spawn(process.execPath, ['ace.js', 'user:reset-password', ...args], {
      cwd: app.appRoot.pathname,
      env: { ...process.env, GATEWAY_DATA_DIR: folder, NODE_ENV: 'development' },
      stdio: [input === null ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    })
    if (input !== null) child.stdin!.end(input)
    return finish(child)
  }

  /**
   * On a terminal (a pseudo-terminal from util-linux `script`): each answer is typed once its
   * question shows, as a person would.
   */
  function resetOnTerminal(email: string, answers: Array<[question: string, typed: string]>): Promise<Run> {
    const command = `stty cols 100; exec '${process.execPath}' ace.js user:reset-password ${email}`
    const child = spawn('script', ['-qec', command, '/dev/null'], {
      cwd: app.appRoot.pathname,
      env: { ...process.env, GATEWAY_DATA_DIR: dataDir, NODE_ENV: 'development' },
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    let seen = ''
    const pending = [...answers]
    child.stdout!.on('data', (chunk) => {
      seen += chunk
      if (pending.length > 0 && seen.includes(pending[0][0])) {
        const [question, typed] = pending.shift()!
        // Typed after the question: what came before it is kept apart from what follows.
        seen = seen.slice(seen.indexOf(question) + question.length)
        child.stdin!.write(`${typed}\r`)
      }
    })
    return finish(child)
  }

  /** Sessions of the owner's account, read from the database file beside the gateway (WAL). */
  async function ownerSessions(): Promise<number> {
    const [row] = await query<{ total: number }>(
      join(dataDir, 'gateway.db'),
      `SELECT count(*) AS total FROM sessions WHERE user_id = (SELECT CAST(id AS TEXT) FROM users WHERE email = '${OWNER.email}')`
    )
    return row.total
  }
  const sessionsSignedOut = (count: number) => (count === 1 ? '1 session signed out' : `${count} sessions signed out`)

  const signIn = (password: string) => new Browser(origin).call('POST', '/api/v1/auth/login', { email: OWNER.email, password })

  test('--help explains the command, its --stdin flag and the data folder', async ({ assert }) => {
    const help = await reset(['--help'], null)
    assert.equal(help.status, 0, help.output)
    assert.include(help.output, 'user:reset-password')
    assert.include(help.output, '--stdin')
    assert.include(help.output, 'GATEWAY_DATA_DIR')
    assert.include(help.output, 'signed out')
  }).timeout(60_000)

  test('with the gateway running: the password changes, every session of the account is signed out, the Activity log says so', async ({ assert }) => {
    const laptop = new Browser(origin)
    await laptop.signIn(OWNER.email, OWNER.password)
    const phone = new Browser(origin)
    await phone.signIn(OWNER.email, OWNER.password)
    const newPassword = 'reset while running 42'
    const sessions = await ownerSessions()
    assert.isAtLeast(sessions, 2)

    const run = await reset([OWNER.email.toUpperCase(), '--stdin'], `${newPassword}\n`)
    assert.equal(run.status, 0, run.output)
    assert.deepEqual(run.lines, [`[ success ] password of Owner reset; ${sessionsSignedOut(sessions)}`])
    assert.equal(await ownerSessions(), 0)

    assert.equal((await laptop.call('GET', '/api/v1/auth/me')).status, 401)
    assert.equal((await phone.call('GET', '/api/v1/auth/me')).status, 401)
    assert.equal((await signIn(OWNER.password)).status, 401)
    const browser = new Browser(origin)
    await browser.signIn(OWNER.email, newPassword)

    const activity = await browser.call('GET', '/api/v1/activity?source=auth')
    assert.equal(activity.status, 200)
    const entry = activity.body.data.find((row: { message: string }) => /reset from the command line/.test(row.message))
    assert.exists(entry, JSON.stringify(activity.body))
    assert.equal(entry.level, 'warning')
    assert.include(entry.message, sessionsSignedOut(sessions))
    const log = readFileSync(join(dataDir, 'logs', 'gateway.log'), 'utf8')
    for (const text of [JSON.stringify(activity.body), log, run.output]) {
      assert.notInclude(text, newPassword)
      assert.notInclude(text, OWNER.email)
    }
    OWNER.password = newPassword
  }).timeout(90_000)

  test('on a terminal it asks twice without showing what is typed', async ({ assert }) => {
    const typed = 'typed on a terminal 7'
    const run = await resetOnTerminal(OWNER.email, [
      ['New password', typed],
      ['The same password again', typed],
    ])
    assert.equal(run.status, 0, run.output)
    assert.notInclude(run.output, typed)
    assert.match(run.output, /\[ success \] password of Owner reset; \d+ sessions? signed out/)
    assert.equal((await signIn(typed)).status, 200)
    OWNER.password = typed

    const mistyped = await resetOnTerminal(OWNER.email, [
      ['New password', 'one long passphrase'],
      ['The same password again', 'another long passphrase'],
    ])
    assert.equal(mistyped.status, 1, mistyped.output)
    assert.match(mistyped.output, /the two passwords differ; nothing changed/)
    assert.equal((await signIn(typed)).status, 200)
  }).timeout(90_000)

  test('refusals: one line, exit status 1, nothing changed', async ({ assert }) => {
    const folderWithoutDatabase = join(root, 'elsewhere')
    mkdirSync(folderWithoutDatabase)
    const cases: Array<[string, () => Promise<Run>, RegExp]> = [
      ['unknown address', () => reset(['nobody@reset.test', '--stdin'], 'a good long password\n'), /^\[ error \] No account has that e-mail address$/],
      ['too short', () => reset([OWNER.email, '--stdin'], 'short\n'), /^\[ error \] new password refused: .*at least 10 characters$/],
      ['empty input', () => reset([OWNER.email, '--stdin'], ''), /^\[ error \] new password refused: /],
      ['two different lines', () => reset([OWNER.email, '--stdin'], 'a good long password\nanother long password\n'), /^\[ error \] the two passwords differ/],
      ['not a terminal, no --stdin', () => reset([OWNER.email], null), /^\[ error \] standard input is not a terminal: .*--stdin$/],
      ['no database there', () => reset([OWNER.email, '--stdin'], 'a good long password\n', folderWithoutDatabase), /^\[ error \] no gateway database at /],
    ]
    for (const [label, start, line] of cases) {
      const run = await start()
      assert.equal(run.status, 1, `${label}: ${run.output}`)
      assert.lengthOf(run.lines, 1, `${label}: ${run.output}`)
      assert.match(run.lines[0], line, label)
    }
    assert.isFalse(existsSync(join(folderWithoutDatabase, 'gateway.db')), 'no empty database is left in a wrong folder')
    assert.equal((await signIn(OWNER.password)).status, 200, 'the password is unchanged')
  }).timeout(120_000)

  test('with the gateway stopped: the same line of the same password twice is accepted, and the database holds it', async ({ assert }) => {
    const browser = new Browser(origin)
    await browser.signIn(OWNER.email, OWNER.password)
    await stop(gateway!.child, 'SIGTERM')
    gateway = null

    const sessions = await ownerSessions()
    assert.isAtLeast(sessions, 1)

    const newPassword = 'reset while stopped 99'
    const run = await reset([OWNER.email, '--stdin'], `${newPassword}\r\n${newPassword}\r\n`)
    assert.equal(run.status, 0, run.output)
    assert.deepEqual(run.lines, [`[ success ] password of Owner reset; ${sessionsSignedOut(sessions)}`])

    const database = join(dataDir, 'gateway.db')
    const [row] = await query<{ id: number; password: string }>(database, `SELECT id, password FROM users WHERE email = '${OWNER.email}'`)
    assert.isTrue(await hash.use('scrypt').verify(row.password, newPassword))
    assert.deepEqual(await query(database, `SELECT id FROM sessions WHERE user_id = '${row.id}'`), [])
    const entries = await query<{ level: string; message: string }>(database, "SELECT level, message FROM activity_entries WHERE source = 'auth'")
    assert.equal(entries.at(-1)!.message, `Password of account Owner reset from the command line; ${sessionsSignedOut(sessions)}`)
    assert.equal(entries.at(-1)!.level, 'warning')
  }).timeout(90_000)
})
