import { test } from '@japa/runner'
import { existsSync, readFileSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SCAN_BUDGET_BYTES, TechnicalLog } from '#core/logging/technical_log'
import logger from '@adonisjs/core/services/logger'
import { DataFolder } from '#core/data_folder/data_folder'
import { ROTATED_LOG_FILES, flushLogFile, rotateLogFileWhenFull } from '#core/logging/log_file'
import { logRotationJob } from '#core/logging/log_rotation_job'
import { useTestKeys, testKeys } from '#tests/helpers/callers'

test.group('Technical log', (group) => {
  group.setup(() => useTestKeys())

  test('GET /logs/technical is admin only', async ({ client, assert }) => {
    const read = await client.get('/api/v1/logs/technical').header('x-api-key', testKeys.read)
    read.assertStatus(403)
    assert.equal(read.body().error.code, 'FORBIDDEN_SCOPE')
    const admin = await client.get('/api/v1/logs/technical').header('x-api-key', testKeys.admin)
    admin.assertStatus(200)
  })

  test('shows the newest lines first, carrying the same request id as the answer', async ({ client, assert }) => {
    const probe = await client.get('/api/v1/no-such-route-for-the-log')
    const requestId = probe.header('x-request-id')
    const response = await client.get('/api/v1/logs/technical').qs({ limit: 20 }).header('x-api-key', testKeys.admin)
    // The request's own line (an error report of the same request may stand beside it).
    const line = response.body().data.find((entry: any) => entry.requestId === requestId && entry.message.startsWith('GET '))
    assert.exists(line, 'the probe request is in the log')
    assert.equal(line.message, 'GET /api/v1/no-such-route-for-the-log 404')
    assert.equal(line.level, 'info')
    assert.match(line.at, /Z$/)
  })

  test("a request's line names its request id once, the one answered, whether the caller sent none, a plain one or a forged one", async ({ client, assert }) => {
    const path = `/api/v1/no-such-route-${Date.now()}`
    const answers = [
      await client.get(`${path}/none`),
      await client.get(`${path}/plain`).header('x-request-id', 'client-trace-87654321'),
      await client.get(`${path}/forged`).header('x-request-id', 'x" level=fatal'),
    ]
    await client.get('/health')
    flushLogFile()
    const lines = readFileSync(DataFolder.current().logFile, 'utf8').split('\n').filter((line) => line.includes(`"GET ${path}/`))
    assert.lengthOf(lines, 3)
    for (const [index, suffix] of ['none', 'plain', 'forged'].entries()) {
      const line = lines.find((text) => text.includes(`${path}/${suffix} 404`))!
      assert.lengthOf(line.match(/"request_id":/g) ?? [], 1, line)
      assert.equal(JSON.parse(line).request_id, answers[index].header('x-request-id'))
    }
    assert.equal(answers[1].header('x-request-id'), 'client-trace-87654321')
  })

  test('pages backwards through the file with an offset cursor, no line twice', async ({ client, assert }) => {
    for (let index = 0; index < 30; index++) logger.info(`paging marker ${index}`)
    const seen: string[] = []
    let cursor: string | undefined
    for (let page = 0; page < 200; page++) {
      const response = await client
        .get('/api/v1/logs/technical')
        .qs({ limit: 7, ...(cursor ? { cursor } : {}) })
        .header('x-api-key', testKeys.admin)
      response.assertStatus(200)
      seen.push(...response.body().data.map((entry: any) => entry.message).filter((message: string) => message.startsWith('paging marker')))
      cursor = response.body().nextCursor ?? undefined
      if (!cursor || seen.length === 30) break
    }
    assert.deepEqual(seen, Array.from({ length: 30 }, (_, index) => `paging marker ${29 - index}`))
  })

  test('is redacted like the log: no API key, full phone number or query secret', async ({ client, assert }) => {
    await client.get('/api/v1/contacts/+33612345678').qs({ api_key: 'sk_should_not_appear' }).header('x-api-key', 'key-should-not-appear-123')
    logger.info({ phone: '+33698765432', password: 'hunter2-should-not-appear' }, 'calling +33 6 98 76 54 32 now')
    const response = await client.get('/api/v1/logs/technical').qs({ limit: 50 }).header('x-api-key', testKeys.admin)
    const text = JSON.stringify(response.body())
    for (const secret of ['33612345678', '33698765432', '6 98 76 54', 'sk_should_not_appear', 'key-should-not-appear-123', 'hunter2-should-not-appear']) {
      assert.notInclude(text, secret)
    }
    assert.include(text, '+33•••••••78')

    // The file itself, not only what the endpoint shows.
    flushLogFile()
    const file = readFileSync(DataFolder.current().logFile, 'utf8')
    for (const secret of ['33612345678', '33698765432', 'sk_should_not_appear', 'key-should-not-appear-123', 'hunter2-should-not-appear']) {
      assert.notInclude(file, secret)
    }
  })

  test('a malformed cursor is 400 VALIDATION_ERROR', async ({ client, assert }) => {
    const response = await client.get('/api/v1/logs/technical').qs({ cursor: 'bad' }).header('x-api-key', testKeys.admin)
    response.assertStatus(400)
    assert.equal(response.body().error.details[0].field, 'cursor')
  })
  test('filters by level (and more severe) and by words of the redacted line', async ({ client, assert }) => {
    const marker = `filter-marker-${Date.now()}`
    logger.debug(`${marker} debug`)
    logger.info(`${marker} info`)
    logger.warn(`${marker} warn`)
    logger.error({ phone: '+33698765432' }, `${marker} error`)
    const messages = async (qs: Record<string, string>) => {
      const response = await client.get('/api/v1/logs/technical').qs({ limit: 200, ...qs }).header('x-api-key', testKeys.admin)
      response.assertStatus(200)
      return response.body().data.map((line: any) => line.message).filter((message: string) => message.startsWith(marker))
    }
    assert.deepEqual(await messages({ level: 'warn', search: marker }), [`${marker} error`, `${marker} warn`])
    assert.deepEqual(await messages({ search: marker.toUpperCase() }), (await messages({ search: marker })))
    assert.includeMembers(await messages({ search: marker }), [`${marker} error`, `${marker} warn`, `${marker} info`])
    // The search sees the line as shown, masked: the hidden digits of a number find nothing.
    assert.deepEqual(await messages({ search: '33698765432' }), [])
    assert.deepEqual(await messages({ search: `${marker} error`, level: 'error' }), [`${marker} error`])

    const bad = await client.get('/api/v1/logs/technical').qs({ level: 'loud' }).header('x-api-key', testKeys.admin)
    bad.assertStatus(400)
    assert.equal(bad.body().error.details[0].field, 'level')
  })

  test('a filter reads at most its budget per request: an emptier page, with a cursor that goes on', async ({ assert }) => {
    const folder = await mkdtemp(join(tmpdir(), 'technical-log-'))
    const file = join(folder, 'gateway.log')
    const line = JSON.stringify({ level: 30, time: 1_780_000_000_000, msg: 'x'.repeat(1000) }) + '\n'
    const rare = JSON.stringify({ level: 50, time: 1_780_000_000_000, msg: 'the rare one' }) + '\n'
    // The rare line, then more than the budget of ordinary lines after it.
    await writeFile(file, rare + line.repeat(Math.ceil((SCAN_BUDGET_BYTES * 1.5) / line.length)))
    const log = new TechnicalLog(file)
    const first = await log.page({ level: 'error' })
    assert.lengthOf(first.data, 0)
    assert.isString(first.nextCursor)
    const second = await log.page({ level: 'error', cursor: first.nextCursor! })
    assert.deepEqual(second.data.map((entry) => entry.message), ['the rare one'])
    assert.isNull(second.nextCursor)
    await rm(folder, { recursive: true })
  })
})

test.group('Technical log rotation', () => {
  test('a full file becomes gateway.log.1, older ones move up, the oldest beyond 5 is dropped; a small one is left alone', async ({ assert }) => {
    const folder = await mkdtemp(join(tmpdir(), 'log-rotation-'))
    try {
      const file = join(folder, 'gateway.log')
      await writeFile(file, 'small\n')
      assert.isFalse(rotateLogFileWhenFull(file, 1024))
      for (let round = 1; round <= ROTATED_LOG_FILES + 2; round++) {
        await writeFile(file, `round ${round}\n`.padEnd(2048, '.'))
        assert.isTrue(rotateLogFileWhenFull(file, 1024))
      }
      const last = ROTATED_LOG_FILES + 2
      for (let index = 1; index <= ROTATED_LOG_FILES; index++) {
        assert.match(readFileSync(`${file}.${index}`, 'utf8'), new RegExp(`^round ${last + 1 - index}\\n`))
      }
      assert.isFalse(existsSync(`${file}.${ROTATED_LOG_FILES + 1}`))
    } finally {
      await rm(folder, { recursive: true, force: true })
    }
  })

  test("the gateway's own log goes on in a new gateway.log after a rotation, no line lost", async ({ assert }) => {
    const file = DataFolder.current().logFile
    logger.info('line before the rotation')
    flushLogFile()
    assert.isTrue(rotateLogFileWhenFull(file, 0))
    logger.info('line after the rotation')
    flushLogFile()
    assert.include(readFileSync(`${file}.1`, 'utf8'), 'line before the rotation')
    const fresh = readFileSync(file, 'utf8')
    assert.include(fresh, 'line after the rotation')
    assert.notInclude(fresh, 'line before the rotation')
  })

  test('the rotation job looks again every 5 minutes', async ({ assert }) => {
    let looked = 0
    const job = logRotationJob(() => {
      looked++
      return false
    })
    const now = new Date('2026-11-23T10:00:00.000Z')
    assert.equal((await job.run(now))?.toISOString(), '2026-11-23T10:05:00.000Z')
    assert.equal(looked, 1)
  })
})
