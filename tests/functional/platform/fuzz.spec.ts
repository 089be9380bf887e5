import { test } from '@japa/runner'
import fc from 'fast-check'
import { request as httpRequest } from 'node:http'
import app from '@adonisjs/core/services/app'
import db from '@adonisjs/lucid/services/db'
import { SettingsStore } from '#core/settings/settings_store'
import { SignInAttempts } from '#modules/auth/services/sign_in_throttle'
import { PairingFailures } from '#modules/devices/services/pairing_attempts'
import { signInAs, testKeys, useTestKeys } from '#tests/helpers/callers'

/**
 * Every documented operation, read from the OpenAPI document of the running server, is called
 * with hostile input (wrong types, lone surrogates, NUL bytes, huge strings, deep nesting, bad
 * cursors, junk headers) in its path, query and body, by three callers. Whatever the input, the
 * answer is never a 5xx, and every refusal is in the error format. Runs are deterministic (one
 * seed) and bounded.
 *
 * Test files share one database, so nothing another file relies on may change: path ids are
 * never ones that exist, logout is not called with the session in use, the operations that
 * write backups or copy the database are left out, and settings and throttles are put back.
 */

const SEED = 20_261_123
const RUNS_PER_OPERATION = Number(process.env.FUZZ_RUNS ?? 8)

/** Operations left out, and why. */
const SKIPPED: Record<string, string> = {
  'POST /api/v1/backups': 'writes a backup file each call',
  'DELETE /api/v1/backups/restore': 'cancels a restore another file may have prepared',
  'GET /api/v1/export/database': 'copies the whole database each call; it takes no input',
}
/** Called without the dashboard session (it would end the session the other calls use). */
const NOT_WITH_SESSION = new Set(['POST /api/v1/auth/logout'])
/** Given only bodies that cannot pass validation: a valid one changes state other files rely on. */
const INVALID_BODIES_ONLY = new Set(['PUT /api/v1/license', 'PATCH /api/v1/settings'])

type Schema = Record<string, any>

interface Operation {
  method: string
  path: string
  key: string
  parameters: Array<{ name: string; in: 'path' | 'query' | 'header'; schema?: Schema }>
  body?: Schema
}

interface Caller {
  name: string
  headers: () => Record<string, string>
}

interface Attempt {
  path: string
  query: string
  headers: Record<string, string>
  body?: string
}

interface Answer {
  status: number
  headers: Record<string, string | string[] | undefined>
  text: string
}

/** A raw call: bodies, paths and headers go out exactly as generated. */
function call(method: string, attempt: Attempt): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      {
        host: '127.0.0.1',
        port: Number(process.env.PORT),
        method,
        path: attempt.query ? `${attempt.path}?${attempt.query}` : attempt.path,
        headers: attempt.body === undefined ? attempt.headers : { 'content-length': String(Buffer.byteLength(attempt.body)), ...attempt.headers },
        agent: false,
      },
      (response) => {
        const chunks: Buffer[] = []
        response.on('data', (chunk) => chunks.push(chunk))
        response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, text: Buffer.concat(chunks).toString('utf8') }))
        response.on('error', reject)
      }
    )
    request.on('error', reject)
    request.end(attempt.body)
  })
}

// ---- Hostile values -------------------------------------------------------------------------

const HUGE_TEXT = 'x'.repeat(300_000)

function nested(depth: number, kind: 'array' | 'object'): unknown {
  let value: unknown = 'bottom'
  for (let level = 0; level < depth; level++) value = kind === 'array' ? [value] : { a: value }
  return value
}

/** Strings that broke, or could break, a validator, a query or a log line. */
const SPECIAL_STRINGS = [
  '', ' ', '\u0000', 'a\u0000b', '\ud800', '\udfff', 'x\ud83d', '\ud800@example.com', '1', '0', '-1', '1e3', 'true', 'null',
  '%', '%00', '../../etc/passwd', '<script>', "' OR 1=1 --", '\u202e', '😀'.repeat(50), 'A'.repeat(5_000), HUGE_TEXT,
]
const brokenCharacter = fc.constantFrom('\ud800', '\udc00', '\u0000', '\u202e')

const hostileString = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...SPECIAL_STRINGS) },
  { weight: 3, arbitrary: fc.tuple(fc.string({ maxLength: 8 }), brokenCharacter, fc.string({ maxLength: 8 })).map((parts) => parts.join('')) },
  { weight: 1, arbitrary: fc.string({ maxLength: 40, unit: 'binary' }) },
  { weight: 1, arbitrary: fc.string({ maxLength: 40, unit: 'grapheme' }) }
)

const WRONG_SCALARS = [null, true, false, 0, 1, -1, 0.5, 1e308, -1e308, Number.MAX_SAFE_INTEGER + 2, 2 ** 64]
const hostileScalar = fc.oneof(
  { weight: 3, arbitrary: hostileString },
  { weight: 2, arbitrary: fc.constantFrom(...WRONG_SCALARS) },
  { weight: 1, arbitrary: fc.integer() },
  { weight: 1, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) }
)

const DEEP_AND_ODD = [nested(2_000, 'array'), nested(2_000, 'object'), [], {}, [null], { '': null }]
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: hostileScalar },
  { weight: 1, arbitrary: fc.constantFrom(...DEEP_AND_ODD) },
  { weight: 2, arbitrary: fc.array(hostileScalar, { maxLength: 4 }) },
  { weight: 2, arbitrary: fc.dictionary(hostileString, hostileScalar, { maxKeys: 3 }) }
)

/**
 * Values no schema of ours accepts for a text field (a license key, a setting): a plausible
 * string there could be a valid key or name and change what other files rely on.
 */
const neverValid = fc.constantFrom<unknown>(null, true, 0, -1, 1.5, [], {}, '', '\ud800', 'a\u0000b', 'x\udc00yz', HUGE_TEXT, ...DEEP_AND_ODD)

/** A value that may or may not fit the schema: hostile most of the time, plausible sometimes. */
function valueFor(schema: Schema | undefined, depth: number, plausible: boolean): fc.Arbitrary<unknown> {
  if (!plausible && !schema?.properties && !schema?.items) return neverValid
  if (!schema || depth > 4) return hostileValue
  const options: fc.Arbitrary<unknown>[] = [plausible ? hostileValue : neverValid]
  if (plausible) {
    if (Array.isArray(schema.enum)) options.push(fc.constantFrom(...schema.enum))
    const types: string[] = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : []
    if (types.includes('string')) options.push(schema.format === 'email' ? fc.constantFrom('fuzz@example.com', 'a@b.co') : fc.string({ maxLength: 30 }))
    if (types.includes('integer') || types.includes('number')) options.push(fc.integer({ min: -5, max: 100_000 }))
    if (types.includes('boolean')) options.push(fc.boolean())
    if (types.includes('null')) options.push(fc.constant(null))
  }
  if (schema.properties) options.push(objectFor(schema, depth + 1, plausible))
  if (schema.items) options.push(fc.array(valueFor(schema.items, depth + 1, plausible), { maxLength: 3 }))
  for (const branch of [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])]) options.push(valueFor(branch, depth + 1, plausible))
  return fc.oneof(...options)
}

/** Some of the documented fields, each with a value from {@link valueFor}, plus now and then a field nobody knows. */
function objectFor(schema: Schema, depth: number, plausible: boolean): fc.Arbitrary<Record<string, unknown>> {
  const properties = Object.entries<Schema>(schema.properties ?? {})
  const known = fc.record(Object.fromEntries(properties.map(([name, property]) => [name, valueFor(property, depth, plausible)])), { requiredKeys: [] })
  const unknown = fc.option(fc.dictionary(hostileString, hostileScalar, { minKeys: 1, maxKeys: 2 }), { freq: 4 })
  return fc.tuple(known, unknown).map(([fields, extra]) => ({ ...(extra ?? {}), ...fields }))
}

function bodyFor(operation: Operation): fc.Arbitrary<string | undefined> {
  const plausible = !INVALID_BODIES_ONLY.has(operation.key)
  const json = operation.body
    ? fc.oneof({ weight: 8, arbitrary: objectFor(operation.body, 0, plausible) }, { weight: 2, arbitrary: hostileValue })
    : fc.oneof(fc.constant({}), fc.dictionary(hostileString, hostileScalar, { minKeys: 1, maxKeys: 2 }), hostileValue)
  const text = json
    .map((value) => JSON.stringify(value))
    .filter((text) => text !== undefined && (!INVALID_BODIES_ONLY.has(operation.key) || text !== '{}'))
  const broken = fc.constantFrom('{', '{"a":', 'nul', '[1,]', '\u0000', '{"a":"\\ud800"}', '{"__proto__":{"x":1}}', '{"constructor":{"prototype":{"x":1}}}')
  const withBody = fc.oneof({ weight: 8, arbitrary: text }, { weight: 1, arbitrary: broken })
  return operation.method === 'GET' ? fc.constant(undefined) : operation.body ? withBody : fc.option(withBody, { nil: undefined, freq: 2 })
}

// ---- Path, query and headers ----------------------------------------------------------------

/** A path segment that is never the id of an existing row (ids are small numbers). */
const pathSegment = fc
  .oneof(
    fc.constantFrom('0', '-1', '1.5', '1e3', '0x10', '99999999999999', '9007199254740993', '%00', '%ED%A0%80', '%FF', '%E2%80%AE', '..', '%2e%2e', '..%2F..%2Fgateway.db', '%20', 'null', 'a'.repeat(3_000)),
    fc.string({ minLength: 1, maxLength: 30, unit: 'grapheme' }).map(encodeURIComponent),
    fc.string({ minLength: 1, maxLength: 30, unit: 'binary' }).filter((text) => text.isWellFormed()).map(encodeURIComponent)
  )
  .filter((segment) => {
    let decoded = segment
    try {
      decoded = decodeURIComponent(segment)
    } catch {}
    return !/^\s*[1-9]\d{0,10}\s*$/.test(decoded)
  })

const queryValue = fc.oneof(
  fc.constantFrom('', '%00', '%ZZ', '%ED%A0%80', '-1', '0', '201', '1.5', '1e2', 'true', 'yes', 'null', '%5B%5D', 'a'.repeat(5_000)),
  fc.constantFrom('eyJpZCI6Ii0xIn0', 'eyJhIjpudWxsfQ', 'bm90IGpzb24', '!!!', 'AAAA', 'e30'),
  fc.string({ maxLength: 30, unit: 'grapheme' }).map(encodeURIComponent),
  fc.string({ maxLength: 30, unit: 'binary' }).filter((text) => text.isWellFormed()).map(encodeURIComponent)
)

function queryFor(operation: Operation): fc.Arbitrary<string> {
  const names = operation.parameters.filter((parameter) => parameter.in === 'query').map((parameter) => parameter.name)
  const name = fc.oneof(...[...names, 'cursor', 'limit', 'unknown'].map((known) => fc.constant(known)), fc.constantFrom('limit[]', 'limit[a]', '__proto__[x]', '%00'))
  const pair = fc.tuple(name, queryValue).map(([key, value]) => `${key}=${value}`)
  return fc.array(pair, { maxLength: 4 }).map((pairs) => pairs.join('&'))
}

/** Header values Node can send: no control characters, latin-1 only, under its 16 KiB header limit. */
const headerValue = fc.oneof(
  fc.constantFrom('', ' ', 'null', '-1', 'a'.repeat(4_000), '\u00ff\u00fe', '"quoted"', '../../', '*/*', 'application/json; charset=utf-16', 'text/plain'),
  fc.string({ maxLength: 40 }).filter((text) => /^[\x20-\x7e]*$/.test(text))
)
const junkHeaders = fc.dictionary(
  fc.constantFrom(
    'x-request-id',
    'idempotency-key',
    'content-type',
    'content-encoding',
    'accept',
    'accept-encoding',
    'x-xsrf-token',
    'cookie',
    'x-api-key',
    'x-forwarded-for',
    'x-forwarded-proto',
    'authorization',
    'range',
    'if-none-match',
    'x-http-method-override'
  ),
  headerValue,
  { maxKeys: 3 }
)

function attemptFor(operation: Operation, caller: Caller): fc.Arbitrary<Attempt> {
  const parameters = operation.parameters.filter((parameter) => parameter.in === 'path').map((parameter) => parameter.name)
  const path = fc
    .tuple(...parameters.map(() => pathSegment))
    .map((segments) => parameters.reduce((path, name, index) => path.replace(`{${name}}`, segments[index]), operation.path))
  const documentedHeaders = operation.parameters.filter((parameter) => parameter.in === 'header')
  const documented = fc.record(Object.fromEntries(documentedHeaders.map((header) => [header.name.toLowerCase(), headerValue])), { requiredKeys: [] })
  return fc
    .record({
      path,
      query: queryFor(operation),
      body: bodyFor(operation),
      documented,
      junk: fc.option(junkHeaders, { freq: 3 }),
    })
    .map(({ path, query, body, documented, junk }) => ({
      path,
      query,
      body,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...caller.headers(), ...documented, ...(junk ?? {}) },
    }))
}

// ---- What every answer must be --------------------------------------------------------------

function problemWith(answer: Answer): string | null {
  if (answer.status >= 500) return `answered ${answer.status}: ${answer.text.slice(0, 300)}`
  if (answer.status < 300) return null
  if (answer.status < 400 && answer.headers.location) return null
  let body: any
  try {
    body = JSON.parse(answer.text)
  } catch {
    return `answered ${answer.status} without a JSON body: ${answer.text.slice(0, 200)}`
  }
  const error = body?.error
  if (typeof error?.code !== 'string' || typeof error?.message !== 'string' || typeof error?.requestId !== 'string') {
    return `answered ${answer.status} outside the error format: ${answer.text.slice(0, 300)}`
  }
  if (error.requestId !== answer.headers['x-request-id']) return `requestId ${error.requestId} is not the X-Request-Id header`
  if (answer.text.length > 20_000) return `answered ${answer.text.length} characters for a refusal`
  return null
}

// ---- The sweep: every documented field, every kind of hostile value ---------------------

/** A value the schema likely accepts, so that a call reaches past the field under test. */
function sampleFor(schema: Schema | undefined): unknown {
  if (!schema) return 'fuzz'
  if (Array.isArray(schema.enum)) return schema.enum[0]
  if (Array.isArray(schema.examples)) return schema.examples[0]
  const branch = schema.oneOf?.[0] ?? schema.anyOf?.[0]
  const type = Array.isArray(schema.type) ? schema.type.find((one: string) => one !== 'null') : schema.type
  if (!type && branch) return sampleFor(branch)
  switch (type) {
    case 'string':
      return schema.format === 'email' ? 'fuzz@example.com' : 'fuzz-value'.padEnd(schema.minLength ?? 0, 'z')
    case 'integer':
    case 'number':
      return schema.minimum ?? 1
    case 'boolean':
      return false
    case 'array':
      return schema.minItems ? [sampleFor(schema.items)] : []
    case 'object':
      return Object.fromEntries((schema.required ?? []).map((name: string) => [name, sampleFor(schema.properties?.[name])]))
    default:
      return 'fuzz'
  }
}

/** Each documented field of a body, at any depth (list items as `0`), with the schema above it. */
function fieldsOf(schema: Schema, path: string[] = []): Array<{ path: string[]; schema: Schema }> {
  const fields: Array<{ path: string[]; schema: Schema }> = []
  for (const [name, property] of Object.entries<Schema>(schema.properties ?? {})) {
    fields.push({ path: [...path, name], schema: property })
    if (property.properties) fields.push(...fieldsOf(property, [...path, name]))
    if (property.items?.properties) fields.push(...fieldsOf(property.items, [...path, name, '0']))
  }
  return fields
}

/** The body's sample with `value` put at `path` (creating the objects and lists on the way). */
function bodyWith(schema: Schema, path: string[], value: unknown): unknown {
  const body = sampleFor(schema) as Record<string, any>
  let at: any = body
  let atSchema: Schema | undefined = schema
  for (const [index, key] of path.entries()) {
    const last = index === path.length - 1
    const childSchema: Schema | undefined = key === '0' ? atSchema?.items : atSchema?.properties?.[key]
    if (last) at[key] = value
    else {
      if (at[key] === undefined || typeof at[key] !== 'object') at[key] = path[index + 1] === '0' ? [] : sampleFor(childSchema) ?? {}
      if (path[index + 1] === '0' && at[key].length === 0) at[key].push(sampleFor(childSchema?.items))
      at = at[key]
      atSchema = childSchema
    }
  }
  return body
}

const SWEEP_VALUES: unknown[] = [...SPECIAL_STRINGS, ...WRONG_SCALARS, ...DEEP_AND_ODD, ['\ud800'], { '\ud800': 1 }]
const SWEEP_NEVER_VALID: unknown[] = [null, true, 0, -1, 1.5, [], {}, '', '\ud800', 'a\u0000b', HUGE_TEXT, ...DEEP_AND_ODD]
const SWEEP_QUERY_VALUES = ['', '%00', '%ZZ', '%ED%A0%80', '-1', '0', '201', '1.5', 'true', 'null', 'a'.repeat(5_000), 'e30', 'eyJpZCI6Ii0xIn0', '!!!']
const SWEEP_SEGMENTS = ['0', '-1', '1.5', '0x10', '99999999999999', '9007199254740993', '%00', '%ED%A0%80', '%FF', '..%2F..%2Fgateway.db', '%20', 'null', 'a'.repeat(3_000)]

function operationsOf(document: Schema): Operation[] {
  const operations: Operation[] = []
  for (const [path, methods] of Object.entries<Schema>(document.paths)) {
    for (const [method, operation] of Object.entries<Schema>(methods)) {
      const key = `${method.toUpperCase()} ${path}`
      if (SKIPPED[key]) continue
      operations.push({
        method: method.toUpperCase(),
        path,
        key,
        parameters: operation.parameters ?? [],
        body: operation.requestBody?.content?.['application/json']?.schema,
      })
    }
  }
  return operations
}

test.group('Fuzzing every documented operation', (group) => {
  let settingsRows: Array<Record<string, unknown>> = []
  /**
   * Rows a valid call may add (a send, an account, an API key); removed afterwards, children
   * before the rows they point to. Rows that were there before are never touched.
   */
  const addedRowTables = ['links', 'messages', 'conversations', 'contacts', 'idempotency_keys', 'api_keys', 'users']
  const lastRowIds = new Map<string, number>()
  group.setup(async () => {
    await useTestKeys()
    settingsRows = await db.from('settings').select('*')
    for (const table of addedRowTables) lastRowIds.set(table, Number((await db.rawQuery(`SELECT COALESCE(MAX(rowid), 0) AS last FROM ${table}`))[0].last))
    return async () => {
      await db.from('api_key_daily_usage').where('api_key_id', '>', lastRowIds.get('api_keys')!).delete()
      for (const table of addedRowTables) await db.rawQuery(`DELETE FROM ${table} WHERE rowid > ?`, [lastRowIds.get(table)!])
      // Put back what a call may have changed, for the files that run after this one.
      await db.from('settings').delete()
      if (settingsRows.length) await db.table('settings').multiInsert(settingsRows)
      ;(await app.container.make(SettingsStore)).invalidate()
      await (await app.container.make(SignInAttempts)).clear()
      await (await app.container.make(PairingFailures)).clear()
    }
  })

  test('no input makes any operation answer 5xx or leave the error format', async ({ client, assert }) => {
    const document = (await client.get('/api-docs/openapi.json')).body()
    const operations = operationsOf(document)
    assert.isAbove(operations.length, 50)
    const session = await signInAs(client, 'superadmin')
    const callers: Caller[] = [
      { name: 'unauthenticated', headers: () => ({}) },
      { name: 'admin API key', headers: () => ({ 'x-api-key': testKeys.admin }) },
      { name: 'superadmin session', headers: () => ({ 'cookie': session.cookie, 'x-xsrf-token': session.xsrf }) },
    ]
    const failures: string[] = []
    let calls = 0
    for (const operation of operations) {
      for (const caller of callers) {
        if (caller.name === 'superadmin session' && NOT_WITH_SESSION.has(operation.key)) continue
        const outcome = await fc.check(
          fc.asyncProperty(attemptFor(operation, caller), async (attempt) => {
            calls++
            const problem = problemWith(await call(operation.method, attempt))
            if (problem) throw new Error(problem)
          }),
          { seed: SEED, numRuns: RUNS_PER_OPERATION, endOnFailure: true }
        )
        if (outcome.failed) {
          const [attempt] = outcome.counterexample ?? []
          const shown = JSON.stringify({ ...attempt, body: attempt?.body?.slice(0, 300) }).slice(0, 800)
          failures.push(`${operation.key} as ${caller.name}: ${(outcome.errorInstance as Error)?.message}\n    input: ${shown}`)
        }
      }
    }
    assert.isAbove(calls, operations.length * 2)
    assert.deepEqual(failures, [], `\n${failures.join('\n')}`)
  }).timeout(180_000)

  test('a documented number or boolean body field refuses the other JSON types, and null unless nullable', async ({ client, assert }) => {
    const document = (await client.get('/api-docs/openapi.json')).body()
    const session = await signInAs(client, 'superadmin')
    const headers = { 'cookie': session.cookie, 'x-xsrf-token': session.xsrf, 'content-type': 'application/json' }
    const wrongFor: Record<string, unknown[]> = { integer: ['1', '', ' ', true, false], number: ['1', '', ' ', true, false], boolean: ['true', 'false', 1, 0, ''] }
    const failures: string[] = []
    let reached = 0
    for (const operation of operationsOf(document)) {
      // Settings sections are checked in settings_types.spec.ts.
      if (!operation.body || INVALID_BODIES_ONLY.has(operation.key)) continue
      const path = operation.parameters.filter((one) => one.in === 'path').reduce((at, one) => at.replace(`{${one.name}}`, '99999999999'), operation.path)
      for (const field of fieldsOf(operation.body)) {
        const types: string[] = Array.isArray(field.schema.type) ? field.schema.type : [field.schema.type]
        const wrong = [...types.flatMap((type) => wrongFor[type] ?? []), ...(types.includes('null') || !types.some((type) => wrongFor[type]) ? [] : [null])]
        for (const value of wrong) {
          const answer = await call(operation.method, { path, query: '', headers, body: JSON.stringify(bodyWith(operation.body, field.path, value)) })
          if (answer.status === 404) continue
          reached++
          const error = JSON.parse(answer.text).error
          const named = error?.details?.some?.((detail: { field: string }) => detail.field === field.path.join('.'))
          if (answer.status < 400 || error?.code !== 'VALIDATION_ERROR' || !named) {
            failures.push(`${operation.key} ${field.path.join('.')}=${JSON.stringify(value)}: ${answer.status} ${answer.text.slice(0, 200)}`)
          }
        }
      }
    }
    assert.isAbove(reached, 50)
    assert.deepEqual(failures, [], `\n${failures.join('\n')}`)
  }).timeout(60_000)

  test('every documented field, query parameter and path parameter takes each hostile value without a 5xx', async ({ client, assert }) => {
    const document = (await client.get('/api-docs/openapi.json')).body()
    const session = await signInAs(client, 'superadmin')
    const headers = { 'cookie': session.cookie, 'x-xsrf-token': session.xsrf }
    const failures: string[] = []
    let calls = 0
    const check = async (operation: Operation, attempt: Attempt, what: string) => {
      calls++
      const problem = problemWith(await call(operation.method, attempt))
      if (problem) failures.push(`${operation.key} ${what}: ${problem}`)
    }
    for (const operation of operationsOf(document)) {
      if (NOT_WITH_SESSION.has(operation.key)) continue
      const pathParameters = operation.parameters.filter((parameter) => parameter.in === 'path').map((parameter) => parameter.name)
      const pathWith = (segment: string) => pathParameters.reduce((path, name) => path.replace(`{${name}}`, segment), operation.path)
      const safePath = pathWith('99999999999')
      for (const segment of SWEEP_SEGMENTS) {
        if (pathParameters.length) await check(operation, { path: pathWith(segment), query: '', headers }, `path ${segment.slice(0, 40)}`)
      }
      for (const parameter of operation.parameters.filter((one) => one.in === 'query')) {
        for (const value of SWEEP_QUERY_VALUES) {
          await check(operation, { path: safePath, query: `${parameter.name}=${value}`, headers }, `query ${parameter.name}=${value.slice(0, 40)}`)
        }
        await check(operation, { path: safePath, query: `${parameter.name}=1&${parameter.name}=2`, headers }, `query ${parameter.name} twice`)
        await check(operation, { path: safePath, query: `${parameter.name}[a]=1`, headers }, `query ${parameter.name}[a]`)
      }
      if (!operation.body) continue
      const values = INVALID_BODIES_ONLY.has(operation.key) ? SWEEP_NEVER_VALID : SWEEP_VALUES
      for (const field of fieldsOf(operation.body)) {
        for (const value of values) {
          const body = JSON.stringify(bodyWith(operation.body, field.path, value))
          await check(operation, { path: safePath, query: '', headers: { ...headers, 'content-type': 'application/json' }, body }, `${field.path.join('.')}=${JSON.stringify(value)?.slice(0, 40)}`)
        }
      }
    }
    assert.isAbove(calls, 1_000)
    assert.deepEqual(failures, [], `\n${failures.slice(0, 40).join('\n')}`)
  }).timeout(180_000)
})
