import { test } from '@japa/runner'
import type { Group } from '@japa/runner/core'
import { randomBytes } from 'node:crypto'
import { mkdirSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { snapshotDatabase } from '#core/database/database_snapshot'
import app from '@adonisjs/core/services/app'
import db from '@adonisjs/lucid/services/db'
import emitter from '@adonisjs/core/services/emitter'
import logger from '@adonisjs/core/services/logger'
import testUtils from '@adonisjs/core/services/test_utils'
import { Container } from '@adonisjs/core/container'
import { Emitter } from '@adonisjs/core/events'
import { Logger } from '@adonisjs/core/logger'
import type { ApplicationService } from '@adonisjs/core/types'
import { errors as vineErrors } from '@vinejs/vine'
import { Clock, ManualClock } from '#core/time/clock'
import { JobRunner } from '#core/jobs/job_runner'
import { Secrets } from '#core/secrets/secrets'
import { ActivityLog } from '#core/activity/activity_log'
import { ApiError } from '#core/http/api_error'
import { RouteRegistry } from '#core/contract/route_registry'
import { DataFolder } from '#core/data_folder/data_folder'
import { flushLogFile } from '#core/logging/log_file'
import type { PublicEvent } from '#core/events/public_events'
import { LICENSE_SOURCE, LicenseService } from '#modules/license/services/license_service'
import { LicenseStateStore } from '#modules/license/stores/license_state_store'
import { LicenseServerClient } from '#modules/license/services/license_server_client'
import { LICENSE_CHECK_JOB } from '#modules/license/jobs/license_check_job'
import { bindLicense, startLicense } from '#modules/license/license_provider'
import { LicenseConfig, licenseKeyOf, licenseServerOf } from '#modules/license/services/license_config'
import LicenseController from '#modules/license/controllers/license_controller'
import { SignInAttempts } from '#modules/auth/services/sign_in_throttle'
import { BackupSchedule } from '#modules/backups/services/backup_schedule'
import { TEST_PASSWORD, asBrowser, signInAs, testKeys, useTestKeys } from '#tests/helpers/callers'
import { UserService } from '#modules/auth/services/user_service'
import { Browser } from '../auth/browser.js'
import { FakeLicenseServer } from '#tests/helpers/license_server'
import { checkedFetch } from '#tests/helpers/answer_contract'

/**
 * A context for PUT /license as the router hands it to the handler: the body validated by the
 * route's contract (which refuses a malformed key before the handler runs).
 */
async function keyReplacement(body: Record<string, unknown>) {
  const contract = (await app.container.make(RouteRegistry)).contracts.find((known) => known.operationId === 'replaceLicenseKey')!
  const ctx = await testUtils.createHttpContext()
  ctx.request.updateBody(body)
  ctx.routeInput = { body: await contract.body!.validate(body, {}), query: undefined }
  ctx.route = { name: 'replaceLicenseKey' } as NonNullable<typeof ctx.route>
  return ctx
}

const START = '2026-03-01T09:00:00.000Z'
const MINUTE = 60_000
const HOUR = 60 * MINUTE
const VERSION = '9.9.9-test'
/** Distinctive enough that finding it anywhere means the key leaked. */
const KEY = 'LKEY-7f3a9c1e5b2d4a6f8e0c-full-license-key'
const OTHER_KEY = 'NEWK-1b9d2e7c4a5f6e3d0c8b-another-full-key'

interface Harness {
  clock: ManualClock
  runner: JobRunner
  license: LicenseService
  /** Starts the runner and lets the first (due at once) check finish. */
  start(): Promise<void>
  /** Moves time and waits for the checks it made due. */
  advance(ms: number): Promise<void>
}

let fake: FakeLicenseServer
let secrets: Secrets
const runners: JobRunner[] = []
const events: Array<{ event: string; data: PublicEvent }> = []

/**
 * The fake license server and the license events heard, for the group; before each test a
 * clean license row, job row and license Activity entries; after it, the runners stopped.
 */
function useLicenseFixtures(group: Group) {
  group.setup(async () => {
    fake = await FakeLicenseServer.start()
    secrets = await app.container.make(Secrets)
    const unsubscribe = (['license.offline', 'license.reconnected'] as const).map((name) =>
      emitter.on(name, (data) => {
        events.push({ event: name, data })
      })
    )
    return async () => {
      unsubscribe.forEach((off) => off())
      await fake.stop()
    }
  })

  group.each.setup(async () => {
    await db.from('license_state').delete()
    await db.from('scheduled_jobs').where('name', LICENSE_CHECK_JOB).delete()
    await db.from('activity_entries').where('source', LICENSE_SOURCE).delete()
    fake.behave('valid')
    fake.requests.length = 0
    events.length = 0
    return async () => {
      await Promise.all(runners.splice(0).map((runner) => runner.stop()))
    }
  })
}

/** A service of our own on a ManualClock and its own runner, built from its constructor parameters as the provider does. */
function harness(options: { server?: string | null; clock?: ManualClock; timeoutMs?: number } = {}): Harness {
  const clock = options.clock ?? new ManualClock(START)
  const runner = new JobRunner(clock, db, logger)
  runners.push(runner)
  const config = new LicenseConfig({
    server: options.server === undefined ? fake.url : options.server,
    gatewayVersion: VERSION,
    checkTimeoutMs: options.timeoutMs,
  })
  const license = new LicenseService(
    config,
    new LicenseStateStore(),
    new LicenseServerClient(config),
    secrets,
    clock,
    emitter,
    new ActivityLog(clock, logger),
    logger
  )
  license.scheduleChecksOn(runner)
  return {
    clock,
    runner,
    license,
    async start() {
      await runner.start()
      await clock.advance(0)
      await runner.whenIdle()
    },
    async advance(ms: number) {
      await clock.advance(ms)
      await runner.whenIdle()
    },
  }
}

function at(offsetMs: number): string {
  return new Date(Date.parse(START) + offsetMs).toISOString()
}

function blockedBy(license: LicenseService): ApiError | null {
  try {
    license.assertWritable()
    return null
  } catch (error) {
    if (error instanceof ApiError) return error
    throw error
  }
}

/** Waits (real time, briefly) for something the fake server sees from another request. */
async function until(condition: () => boolean) {
  for (let waited = 0; !condition(); waited += 5) {
    if (waited > 2000) throw new Error('gave up waiting')
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}

async function licenseActivity() {
  return db.from('activity_entries').where('source', LICENSE_SOURCE).orderBy('id', 'asc').select('level', 'message', 'details')
}

test.group('License gate', (group) => {
  useLicenseFixtures(group)

  test('community mode: no license server, nothing is asked and nothing is ever blocked', async ({ assert }) => {
    // Even a database that says withdrawn (the server was configured before) does not block.
    await new LicenseStateStore().write(
      { state: 'withdrawn', keySealed: secrets.seal(KEY), keyPrefix: 'LKEY', lastCheckedAt: null, lastAnswerAt: null },
      new Date(START)
    )
    const { license, runner, start, advance } = harness({ server: null })
    await license.load()
    await start()
    await advance(48 * HOUR)
    // Entering a key in community mode stores it and asks nobody.
    await license.replaceKey(OTHER_KEY, 'api', null)
    await advance(HOUR)

    assert.lengthOf(fake.requests, 0)
    assert.isNull(blockedBy(license))
    assert.isNull(runner.dueAt(LICENSE_CHECK_JOB))
    assert.deepInclude(license.status(), { mode: 'community', state: 'valid', server: null, keyPrefix: 'NEWK', keyStatus: 'ok' })
  })

  test('licensed without a key: keyStatus missing, nothing is asked, the state stays as it is', async ({ assert }) => {
    const { license, start, advance } = harness()
    await license.load()
    await start()
    await advance(2 * HOUR)
    assert.lengthOf(fake.requests, 0)
    assert.deepInclude(license.status(), { mode: 'licensed', state: 'valid', keyPrefix: null, keyStatus: 'missing' })
  })

  test('valid: asks the server with the key and version, lets writes through, asks again an hour later', async ({ assert }) => {
    const { license, runner, start, advance } = harness()
    await license.load(KEY)
    await start()

    assert.lengthOf(fake.requests, 1)
    assert.deepInclude(fake.requests[0], { method: 'POST', path: '/v1/licenses/check', body: { key: KEY, gatewayVersion: VERSION } })
    assert.isNull(blockedBy(license))
    assert.deepEqual(license.status(), {
      mode: 'licensed',
      state: 'valid',
      keyPrefix: 'LKEY',
      keyStatus: 'ok',
      server: fake.url,
      lastCheckedAt: START,
      lastAnswerAt: START,
    })
    assert.equal(runner.dueAt(LICENSE_CHECK_JOB)?.toISOString(), at(HOUR))

    await advance(59 * MINUTE)
    assert.lengthOf(fake.requests, 1)
    await advance(MINUTE)
    assert.lengthOf(fake.requests, 2)
    assert.lengthOf(events, 0)
  })

  test('withdrawn: assertWritable refuses with 403 LICENSE_BLOCKED; a later valid answer lifts it', async ({ assert }) => {
    fake.behave('withdrawn')
    const { license, runner, start, advance } = harness()
    await license.load(KEY)
    await start()

    const refusal = blockedBy(license)
    assert.instanceOf(refusal, ApiError)
    assert.equal(refusal!.status, 403)
    assert.equal(refusal!.code, 'LICENSE_BLOCKED')
    assert.equal(license.status().state, 'withdrawn')
    assert.equal(runner.dueAt(LICENSE_CHECK_JOB)?.toISOString(), at(15 * MINUTE))
    // A withdrawal is not the server going away: no license.offline.
    assert.lengthOf(events, 0)

    fake.behave('valid')
    await advance(15 * MINUTE)
    assert.isNull(blockedBy(license))
    const activity = await licenseActivity()
    assert.deepEqual(
      activity.map((entry) => entry.level),
      ['info', 'error', 'info']
    )
    assert.match(activity[1].message, /withdrawn.*writes are refused/)
    assert.match(activity[2].message, /valid again/)
  })

  test('an unreachable server sends license.offline once, its return license.reconnected once, each logged', async ({ assert }) => {
    const { license, start, advance } = harness({ timeoutMs: 300 })
    await license.load(KEY)
    await start()

    fake.behave('error500')
    await advance(HOUR)
    assert.equal(license.status().state, 'offline')
    // Information only: nothing is suspended.
    assert.isNull(blockedBy(license))
    assert.deepEqual(events, [{ event: 'license.offline', data: { id: 'LKEY', at: new Date(at(HOUR)) } }])

    // Still silent, in every way a server can be: the event is not repeated.
    fake.behave('hang')
    await advance(5 * MINUTE)
    fake.behave('close')
    await advance(5 * MINUTE)
    // Nothing listening at all (connection refused), then back on the same port.
    const port = Number(new URL(fake.url).port)
    await fake.stop()
    await advance(5 * MINUTE)
    fake = await FakeLicenseServer.start(port)
    assert.equal(license.status().state, 'offline')
    assert.equal(license.status().lastAnswerAt, START)
    assert.equal(license.status().lastCheckedAt, at(HOUR + 15 * MINUTE))
    assert.lengthOf(events, 1)

    fake.behave('valid')
    await advance(5 * MINUTE)
    assert.equal(license.status().state, 'valid')
    assert.deepEqual(events, [
      { event: 'license.offline', data: { id: 'LKEY', at: new Date(at(HOUR)) } },
      { event: 'license.reconnected', data: { id: 'LKEY', at: new Date(at(HOUR + 20 * MINUTE)) } },
    ])
    const activity = await licenseActivity()
    assert.deepEqual(
      activity.slice(1).map((entry) => [entry.level, JSON.parse(entry.details)]),
      [
        ['warning', { keyPrefix: 'LKEY', from: 'valid', to: 'offline' }],
        ['info', { keyPrefix: 'LKEY', from: 'offline', to: 'valid' }],
      ]
    )
    assert.match(activity[1].message, /does not answer \(the license server answered HTTP 500\)/)
    assert.match(activity[2].message, /answers again/)
  })

  test('a server that comes back saying withdrawn: license.reconnected, then writes refused', async ({ assert }) => {
    const { license, start, advance } = harness()
    await license.load(KEY)
    await start()
    fake.behave('error500')
    await advance(HOUR)
    fake.behave('withdrawn')
    await advance(5 * MINUTE)

    assert.deepEqual(
      events.map((entry) => entry.event),
      ['license.offline', 'license.reconnected']
    )
    assert.equal(blockedBy(license)?.code, 'LICENSE_BLOCKED')
    const activity = await licenseActivity()
    assert.equal(activity.at(-1).level, 'error')
    assert.match(activity.at(-1).message, /answers again: the license is withdrawn/)
  })

  test('withdrawn stays withdrawn while the server cannot be reached, without license.offline', async ({ assert }) => {
    fake.behave('withdrawn')
    const { license, runner, start, advance } = harness({ timeoutMs: 300 })
    await license.load(KEY)
    await start()

    fake.behave('hang')
    await advance(15 * MINUTE)
    assert.equal(license.status().state, 'withdrawn')
    assert.equal(runner.dueAt(LICENSE_CHECK_JOB)?.toISOString(), at(20 * MINUTE))
    fake.behave('error500')
    await advance(5 * MINUTE)
    fake.behave('close')
    await advance(5 * MINUTE)

    assert.lengthOf(fake.requests, 4)
    assert.equal(blockedBy(license)?.code, 'LICENSE_BLOCKED')
    assert.deepInclude(license.status(), { state: 'withdrawn', lastAnswerAt: START, lastCheckedAt: at(25 * MINUTE) })
    assert.lengthOf(events, 0)
  })

  test('a redirect is not followed and a 500 is not retried: one request per check, both count as no answer', async ({ assert }) => {
    const { license, start, advance } = harness()
    await license.load(KEY)
    await start()

    fake.behave('redirect')
    await advance(HOUR)
    assert.deepEqual(
      fake.requests.map((request) => request.path),
      ['/v1/licenses/check', '/v1/licenses/check']
    )
    assert.equal(license.status().state, 'offline')

    fake.behave('error500')
    await advance(5 * MINUTE)
    assert.lengthOf(fake.requests, 3)
  })

  test('the state survives a restart: withdrawn before any check, and the next check waits for its due time', async ({ assert }) => {
    fake.behave('withdrawn')
    const first = harness()
    await first.license.load(KEY)
    await first.start()
    await first.runner.stop()

    // A new process: fresh service and runner, same database, a little later.
    const clock = first.clock
    await clock.advance(5 * MINUTE)
    const second = harness({ clock })
    await second.license.load()
    assert.equal(blockedBy(second.license)?.code, 'LICENSE_BLOCKED')
    assert.deepEqual(second.license.status(), {
      mode: 'licensed',
      state: 'withdrawn',
      keyPrefix: 'LKEY',
      keyStatus: 'ok',
      server: fake.url,
      lastCheckedAt: START,
      lastAnswerAt: START,
    })

    fake.behave('valid')
    await second.start()
    assert.lengthOf(fake.requests, 1)
    await second.advance(10 * MINUTE)
    assert.lengthOf(fake.requests, 2)
    assert.equal(fake.requests[1].body.key, KEY)
    assert.isNull(blockedBy(second.license))
  })

  test('a key sealed with another master key reports must_be_set_again, asks nothing, and can be entered again', async ({ assert }) => {
    const otherMasterKey = new Secrets(randomBytes(32))
    await new LicenseStateStore().write(
      { state: 'valid', keySealed: otherMasterKey.seal(KEY), keyPrefix: 'LKEY', lastCheckedAt: null, lastAnswerAt: null },
      new Date(START)
    )
    const { license, runner, start, advance } = harness()
    const loaded = await license.load()
    await start()
    await advance(24 * HOUR)

    assert.isFalse(loaded.keyReplaced)
    assert.deepInclude(license.status(), { keyStatus: 'must_be_set_again', keyPrefix: 'LKEY', state: 'valid' })
    assert.lengthOf(fake.requests, 0)
    assert.isNull(runner.dueAt(LICENSE_CHECK_JOB))
    const [warning] = await licenseActivity()
    assert.equal(warning.level, 'warning')
    assert.match(warning.message, /enter the license key again/)

    await license.replaceKey(KEY, 'api', null)
    await advance(0)
    assert.equal(license.status().keyStatus, 'ok')
    assert.lengthOf(fake.requests, 1)
    assert.equal(fake.requests[0].body.key, KEY)
  })

  test('a key given in the environment replaces the stored one; the same key again changes nothing', async ({ assert }) => {
    const store = new LicenseStateStore()
    await store.write({ state: 'valid', keySealed: secrets.seal(KEY), keyPrefix: 'LKEY', lastCheckedAt: null, lastAnswerAt: null }, new Date(START))

    const { license } = harness()
    assert.isTrue((await license.load(OTHER_KEY)).keyReplaced)
    assert.equal(license.status().keyPrefix, 'NEWK')
    const sealed = (await store.read()).keySealed!
    assert.deepEqual(secrets.reveal(sealed), { readable: true, value: OTHER_KEY })

    const restarted = harness().license
    assert.isFalse((await restarted.load(`  ${OTHER_KEY}  `)).keyReplaced)
    assert.isFalse((await restarted.load()).keyReplaced)
    assert.equal(restarted.status().keyPrefix, 'NEWK')
  })

  test('an answer about the previous key is not applied: a key entered during a check is asked about at once', async ({ assert }) => {
    const { license, start, clock, runner } = harness()
    await license.load(KEY)
    await start()

    // The next check is on its way and the server sits on it...
    fake.behave('hold')
    const moving = clock.advance(HOUR).then(() => runner.whenIdle())
    await until(() => fake.requests.length === 2)
    // ...when the operator enters another key; then the server says the old one is withdrawn.
    await license.replaceKey(OTHER_KEY, 'api', null)
    fake.behave('valid')
    fake.release('withdrawn')
    await moving

    assert.deepEqual(
      fake.requests.map((request) => request.body.key),
      [KEY, KEY, OTHER_KEY]
    )
    assert.equal(license.status().state, 'valid')
    // Never withdrawn in between: no refusal was recorded for the old key's answer.
    assert.deepEqual(
      (await licenseActivity()).map((entry) => entry.level),
      ['info', 'info']
    )
  })

  test('the PUT handler works while withdrawn: stores the key sealed, asks at once, and a valid answer lifts the block', async ({ assert }) => {
    fake.behave('withdrawn')
    const { license, start, advance } = harness()
    await license.load(KEY)
    await start()
    const controller = new LicenseController(license)

    await assert.rejects(() => keyReplacement({ key: 'short' }), vineErrors.E_VALIDATION_ERROR)

    fake.behave('valid')
    const ctx = await keyReplacement({ key: OTHER_KEY })
    ctx.caller = { type: 'session', id: '7', role: 'superadmin', name: 'Owner' }
    const answer = await controller.update(ctx)
    assert.deepInclude(answer, { keyPrefix: 'NEWK', keyStatus: 'ok', state: 'withdrawn' })
    // Entered by a person: the Activity entry names them (the controller passes its caller).
    const entered = await db.from('activity_entries').where('kind', 'license.key_entered').orderBy('id', 'desc').first()
    assert.deepInclude(entered, { actor: 'account:7', actor_name: 'Owner' })

    const row = await db.from('license_state').first()
    assert.notInclude(row.key_sealed, OTHER_KEY)
    assert.deepEqual(secrets.reveal(row.key_sealed), { readable: true, value: OTHER_KEY })

    // Asked at once, not at the withdrawn state's next due time.
    await advance(0)
    assert.equal(fake.requests.at(-1)?.body.key, OTHER_KEY)
    assert.isNull(blockedBy(license))
    assert.deepEqual(await controller.show(), license.status())
    assert.equal((await controller.show()).state, 'valid')
  })

  test('the full key never appears in the Activity log, the log file, the GET answer or the refusal', async ({ assert }) => {
    const { license, start, advance } = harness()
    await license.load(KEY)
    await start()
    fake.behave('error500')
    await advance(HOUR)
    fake.behave('withdrawn')
    await advance(5 * MINUTE)
    const controller = new LicenseController(license)
    const ctx = await keyReplacement({ key: OTHER_KEY })
    ctx.caller = { type: 'session', id: '7', role: 'superadmin', name: 'Owner' }
    await controller.update(ctx)
    await advance(0)

    const activity = JSON.stringify(await licenseActivity())
    assert.include(activity, 'LKEY', 'the entries exist and name the key by its prefix')
    const refusal = blockedBy(license)
    assert.exists(refusal)
    const shown = JSON.stringify(await controller.show())
    const row = JSON.stringify(await db.from('license_state').first())
    flushLogFile()
    const logFile = readFileSync(DataFolder.current().logFile, 'utf8')
    assert.include(logFile, 'license check: the license server answered HTTP 500')

    for (const key of [KEY, OTHER_KEY]) {
      const secretPart = key.slice(4)
      for (const [where, text] of Object.entries({ activity, shown, row, logFile, refusal: JSON.stringify({ ...refusal, message: refusal!.message }) })) {
        assert.notInclude(text, secretPart, `${where} holds a license key`)
      }
    }
  })

  test('the environment is checked at start: a malformed key or a server the check cannot speak is refused', ({ assert }) => {
    assert.equal(licenseKeyOf(`  ${KEY}\n`), KEY)
    assert.isNull(licenseKeyOf(undefined))
    assert.isNull(licenseKeyOf('   '))
    // Too short would publish most of itself as the four-character prefix.
    assert.throws(() => licenseKeyOf('AB12'), /GATEWAY_LICENSE_KEY must be/)
    assert.throws(() => licenseKeyOf('has a space inside'), /GATEWAY_LICENSE_KEY must be/)
    try {
      licenseKeyOf('secret with spaces 123')
    } catch (error) {
      assert.notInclude((error as Error).message, 'secret with spaces')
    }

    assert.equal(licenseServerOf('https://licenses.example.com/gateway'), 'https://licenses.example.com/gateway')
    assert.equal(licenseServerOf(fake.url), fake.url)
    assert.isNull(licenseServerOf(undefined))
    assert.throws(() => licenseServerOf('ftp://licenses.example.com'), /http:\/\/ or https:\/\//)
  })

  test('the provider binds the service from its configuration, adds the routes, schedules the check', async ({ assert }) => {
    const clock = new ManualClock(START)
    const container = new Container<any>()
    const registry = new RouteRegistry()
    const runner = new JobRunner(clock, db, logger)
    runners.push(runner)
    container.singleton(Clock, () => clock)
    container.singleton(RouteRegistry, () => registry)
    container.singleton(JobRunner, () => runner)
    container.singleton(Secrets, () => secrets)
    container.singleton(ActivityLog, () => new ActivityLog(clock, logger))
    container.bindValue(Emitter, emitter as unknown as Emitter<any>)
    container.bindValue(Logger, logger)
    const fakeApp = { container, getEnvironment: () => 'test' } as unknown as ApplicationService

    // A previous run left the next check an hour away.
    await db.table('scheduled_jobs').insert({ name: LICENSE_CHECK_JOB, due_at: at(HOUR) })

    bindLicense(container, () => new LicenseConfig({ server: fake.url, gatewayVersion: VERSION, key: KEY }))
    await startLicense(fakeApp)

    const routes = registry.contracts.map((contract) => [contract.method, contract.path, contract.access])
    assert.deepEqual(routes, [
      ['GET', '/api/v1/license', { kind: 'protected', scope: 'admin', roles: ['superadmin'], write: false, permission: 'license.read' }],
      ['PUT', '/api/v1/license', { kind: 'protected', scope: null, roles: ['superadmin'], write: false, permission: 'license.change' }],
    ])
    assert.isTrue(registry.tags.has('License'))

    const license = await container.make(LicenseService)
    assert.deepInclude(license.status(), { mode: 'licensed', keyPrefix: 'LKEY', keyStatus: 'ok' })
    // The environment key replaced the stored one (none): it is checked as soon as the runner
    // starts, not at the due time left by the previous run.
    await runner.start()
    await clock.advance(0)
    await runner.whenIdle()
    assert.lengthOf(fake.requests, 1)
    assert.equal(fake.requests[0].body.key, KEY)
    assert.equal(license.status().lastCheckedAt, START)
  })
})

test.group('License endpoints and the write gate over HTTP', (group) => {
  useLicenseFixtures(group)
  group.setup(() => useTestKeys())
  group.each.setup(async () => {
    await (await app.container.make(SignInAttempts)).clear()
    // Requests see our service (on a ManualClock, asking the fake server), not the app's own.
    return () => app.container.restore(LicenseService)
  })

  async function withdrawnGateway(): Promise<Harness> {
    fake.behave('withdrawn')
    const gateway = harness()
    await gateway.license.load(KEY)
    await gateway.start()
    app.container.swap(LicenseService, () => gateway.license)
    return gateway
  }

  test('GET /license answers the status to an admin key and a superadmin; other callers are refused', async ({ client, assert }) => {
    const { license } = await withdrawnGateway()

    const byKey = await client.get('/api/v1/license').header('x-api-key', testKeys.admin)
    byKey.assertStatus(200)
    assert.deepEqual(byKey.body(), license.status())
    assert.deepInclude(byKey.body(), { mode: 'licensed', state: 'withdrawn', keyPrefix: 'LKEY', keyStatus: 'ok', server: fake.url })
    assert.notInclude(byKey.text(), KEY.slice(4))

    const superadmin = await signInAs(client, 'superadmin')
    ;(await asBrowser(client.get('/api/v1/license'), superadmin)).assertStatus(200)

    const readKey = await client.get('/api/v1/license').header('x-api-key', testKeys.read)
    readKey.assertStatus(403)
    assert.equal(readKey.body().error.code, 'FORBIDDEN_SCOPE')
    const operator = await signInAs(client, 'operator')
    const byOperator = await asBrowser(client.get('/api/v1/license'), operator)
    byOperator.assertStatus(403)
    assert.equal(byOperator.body().error.code, 'FORBIDDEN_SCOPE')
  })

  test('while withdrawn, scheduled backups still run; a backup asked through the API is a write and is refused', async ({ client, assert }) => {
    await withdrawnGateway()
    await db.from('backup_attempts').delete()
    const schedule = await app.container.make(BackupSchedule)
    await schedule.pass(new Date())
    const [attempt] = await db.from('backup_attempts').where('origin', 'scheduled').select('outcome')
    assert.equal(attempt?.outcome, 'success')
    const manual = await client.post('/api/v1/backups').header('x-api-key', testKeys.admin).json({})
    manual.assertStatus(403)
    assert.equal(manual.body().error.code, 'LICENSE_BLOCKED')
    // Rules are writes too.
    const rule = await client.post('/api/v1/rules').header('x-api-key', testKeys.admin).json({ name: 'Blocked', actions: [{ type: 'opt_in' }] })
    assert.equal(rule.body().error.code, 'LICENSE_BLOCKED')
  })

  test('while withdrawn, a write answers 403 LICENSE_BLOCKED and a read works', async ({ client, assert }) => {
    const { advance } = await withdrawnGateway()

    const read = await client.get('/api/v1/settings').header('x-api-key', testKeys.admin)
    read.assertStatus(200)
    const write = await client.patch('/api/v1/settings').header('x-api-key', testKeys.admin).json({ general: read.body().general })
    write.assertStatus(403)
    assert.equal(write.body().error.code, 'LICENSE_BLOCKED')
    assert.notInclude(write.text(), KEY.slice(4))
    // Campaigns, templates and groups are writes too; their reads work.
    for (const [path, body] of [
      ['/api/v1/campaigns', { name: 'Blocked' }],
      ['/api/v1/templates', { name: 'Blocked', body: 'Hi' }],
      ['/api/v1/groups', { name: 'Blocked' }],
    ] as const) {
      const refused = await client.post(path).header('x-api-key', testKeys.admin).json(body)
      refused.assertStatus(403)
      assert.equal(refused.body().error.code, 'LICENSE_BLOCKED')
      ;(await client.get(path).header('x-api-key', testKeys.read)).assertStatus(200)
    }

    fake.behave('valid')
    await advance(15 * MINUTE)
    const again = await client.patch('/api/v1/settings').header('x-api-key', testKeys.admin).json({ general: read.body().general })
    again.assertStatus(200)
  })

  test('while withdrawn, a backup is refused (a write); downloads and exports keep working', async ({ client, assert }) => {
    const folder = DataFolder.current()
    mkdirSync(folder.backupsDir, { recursive: true })
    rmSync(join(folder.backupsDir, 'kept-before.db'), { force: true })
    await snapshotDatabase(folder.databaseFile, join(folder.backupsDir, 'kept-before.db'))
    await withdrawnGateway()

    const backup = await client.post('/api/v1/backups').header('x-api-key', testKeys.admin)
    backup.assertStatus(403)
    assert.equal(backup.body().error.code, 'LICENSE_BLOCKED')
    ;(await client.post('/api/v1/backups/kept-before.db/restore').header('x-api-key', testKeys.admin)).assertStatus(403)
    for (const path of ['/api/v1/backups', '/api/v1/backups/kept-before.db/download', '/api/v1/export/messages', '/api/v1/export/contacts?format=json', '/api/v1/export/database']) {
      const response = await checkedFetch(`${process.env.GATEWAY_PUBLIC_URL}${path}`, { headers: { 'x-api-key': testKeys.admin } })
      assert.equal(response.status, 200, path)
      await response.arrayBuffer()
    }
    rmSync(join(folder.backupsDir, 'kept-before.db'), { force: true })
  })

  test('while withdrawn, people still change their own password and sign out their other sessions', async ({ assert }) => {
    await withdrawnGateway()
    const email = 'withdrawn.own@gateway.test'
    await db.from('users').where('email', email).delete()
    await (await app.container.make(UserService)).create({ email, name: 'Withdrawn own', password: TEST_PASSWORD, role: 'readonly' }, null)
    const here = new Browser()
    await here.signIn(email, TEST_PASSWORD)
    await new Browser().signIn(email, TEST_PASSWORD)

    const changed = await here.call('PUT', '/api/v1/auth/password', { currentPassword: TEST_PASSWORD, newPassword: 'changed while withdrawn' })
    assert.equal(changed.status, 200, JSON.stringify(changed.body))
    assert.deepEqual(changed.body, { endedSessions: 1 })
    const ended = await here.call('POST', '/api/v1/auth/logout-others')
    assert.equal(ended.status, 200, JSON.stringify(ended.body))
  })

  test('PUT /license works while withdrawn, from a superadmin session only; the key stays out of answers and logs', async ({ client, assert }) => {
    const { advance } = await withdrawnGateway()
    fake.behave('valid')

    const byKey = await client.put('/api/v1/license').header('x-api-key', testKeys.admin).json({ key: OTHER_KEY })
    byKey.assertStatus(403)
    assert.equal(byKey.body().error.code, 'FORBIDDEN_SCOPE')
    const operator = await signInAs(client, 'operator')
    ;(await asBrowser(client.put('/api/v1/license'), operator).json({ key: OTHER_KEY })).assertStatus(403)

    const superadmin = await signInAs(client, 'superadmin')
    const invalid = await asBrowser(client.put('/api/v1/license'), superadmin).json({ key: 'ab cd efgh' })
    invalid.assertStatus(400)
    assert.equal(invalid.body().error.details[0].field, 'key')

    const entered = await asBrowser(client.put('/api/v1/license'), superadmin).json({ key: OTHER_KEY })
    entered.assertStatus(200)
    assert.deepInclude(entered.body(), { keyPrefix: 'NEWK', keyStatus: 'ok', state: 'withdrawn' })
    assert.notInclude(entered.text(), OTHER_KEY.slice(4))

    await advance(0)
    assert.equal(fake.requests.at(-1)?.body.key, OTHER_KEY)
    const after = await client.get('/api/v1/license').header('x-api-key', testKeys.admin)
    assert.equal(after.body().state, 'valid')

    flushLogFile()
    assert.notInclude(readFileSync(DataFolder.current().logFile, 'utf8'), OTHER_KEY.slice(4))
  })

  test('the OpenAPI document lists LICENSE_BLOCKED on writes, not on PUT /license, and the status schema', async ({ client, assert }) => {
    const document = (await client.get('/api-docs/openapi.json')).body()
    const license = document.paths['/api/v1/license']
    assert.notInclude(license.put.responses['403']['x-error-codes'], 'LICENSE_BLOCKED')
    assert.notInclude(license.get.responses['403']['x-error-codes'], 'LICENSE_BLOCKED')
    assert.include(document.paths['/api/v1/settings'].patch.responses['403']['x-error-codes'], 'LICENSE_BLOCKED')
    assert.deepEqual(license.get.responses['200'].content['application/json'].schema, { $ref: '#/components/schemas/LicenseStatus' })
    assert.deepEqual(document.components.schemas.LicenseStatus.required, [
      'mode',
      'state',
      'keyPrefix',
      'keyStatus',
      'server',
      'lastCheckedAt',
      'lastAnswerAt',
    ])
  })
})
