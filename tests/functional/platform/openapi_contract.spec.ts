import { test } from '@japa/runner'
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import app from '@adonisjs/core/services/app'
import router from '@adonisjs/core/services/router'
import { Validator } from '@seriousme/openapi-schema-validator'
import { RouteRegistry } from '#core/contract/route_registry'
import { errorsOf, toOpenApiPath } from '#core/contract/openapi_document'
import { errorCatalogue } from '#core/http/api_error'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { answerContract, checkedFetch, type Answer } from '#tests/helpers/answer_contract'

const run = promisify(execFile)

/** Every method + path the router answers under /api/v1 (HEAD is implied by GET). */
function routerOperations(): Set<string> {
  const operations = new Set<string>()
  for (const routes of Object.values(router.toJSON())) {
    for (const route of routes) {
      if (!route.pattern.startsWith('/api/v1')) continue
      for (const method of route.methods) {
        if (method !== 'HEAD') operations.add(`${method} ${toOpenApiPath(route.pattern)}`)
      }
    }
  }
  return operations
}

test.group('OpenAPI contract', () => {
  test('/api-docs/openapi.json is served without authentication and validates as OpenAPI 3.1', async ({ client, assert }) => {
    const response = await client.get('/api-docs/openapi.json')
    response.assertStatus(200)
    const document = response.body()
    assert.equal(document.openapi, '3.1.0')
    const result = await new Validator().validate(document)
    assert.isTrue(result.valid, JSON.stringify(result.errors, null, 2))
  })

  test('passes redocly lint with no errors', async ({ client, assert }) => {
    const document = (await client.get('/api-docs/openapi.json')).body()
    const folder = mkdtempSync(join(tmpdir(), 'openapi-lint-'))
    try {
      const file = join(folder, 'openapi.json')
      writeFileSync(file, JSON.stringify(document))
      const { stdout } = await run(join(app.appRoot.pathname, 'node_modules/.bin/redocly'), ['lint', file, '--format=json'], {
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', CI: 'true' },
        maxBuffer: 16 * 1024 * 1024,
      })
      const report = JSON.parse(stdout)
      assert.equal(report.totals.errors, 0, stdout)
    } finally {
      rmSync(folder, { recursive: true, force: true })
    }
  }).timeout(60_000)

  test('every /api/v1 route the router knows is in the document, and nothing more', async ({ client, assert }) => {
    const document = (await client.get('/api-docs/openapi.json')).body()
    const documented = new Set<string>()
    for (const [path, operations] of Object.entries<Record<string, unknown>>(document.paths)) {
      if (!path.startsWith('/api/v1')) continue
      for (const method of Object.keys(operations)) documented.add(`${method.toUpperCase()} ${path}`)
    }
    const routed = routerOperations()
    assert.isAbove(routed.size, 3)
    assert.deepEqual([...documented].sort(), [...routed].sort())
  })

  test('each operation carries its security and its error codes', async ({ client, assert }) => {
    const document = (await client.get('/api-docs/openapi.json')).body()
    const registry = await app.container.make(RouteRegistry)
    for (const contract of registry.contracts) {
      const operation = document.paths[toOpenApiPath(contract.path)][contract.method.toLowerCase()]
      const label = `${contract.method} ${contract.path}`
      if (contract.access.kind === 'public') {
        assert.deepEqual(operation.security, [], label)
      } else {
        assert.deepInclude(operation.security, { ApiKey: [] }, label)
        assert.equal(operation['x-scope'], contract.access.scope, label)
        for (const code of ['MISSING_API_KEY', 'INVALID_API_KEY', 'FORBIDDEN_SCOPE']) {
          const status = errorCatalogue.entries().map(([, entry]) => entry).find((entry) => entry.code === code)!.status
          assert.include(operation.responses[status]['x-error-codes'], code, label)
        }
      }
      for (const kind of errorsOf(contract, registry)) {
        const { status, code } = errorCatalogue.get(kind)
        assert.include(operation.responses[status]?.['x-error-codes'] ?? [], code, `${label} documents ${code}`)
        assert.equal(operation.responses[status].content['application/json'].schema.$ref, '#/components/schemas/Error')
      }
      assert.property(operation.responses, String(contract.answer.status), label)
    }
  })

  test('node ace openapi:dump prints the same document as the one served', async ({ client, assert }) => {
    const served = (await client.get('/api-docs/openapi.json')).body()
    const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: 'development' }
    delete env.APP_KEY
    const { stdout } = await run(process.execPath, ['ace', 'openapi:dump'], {
      cwd: app.appRoot.pathname,
      env,
      maxBuffer: 16 * 1024 * 1024,
    })
    assert.deepEqual(JSON.parse(stdout), served)
  }).timeout(60_000)

  test('request schemas fill the VineJS gaps: booleans are booleans', async ({ client, assert }) => {
    const document = (await client.get('/api-docs/openapi.json')).body()
    const body = document.paths['/api/v1/settings'].patch.requestBody.content['application/json'].schema
    assert.equal(body.properties.backup.properties.enabled.type, 'boolean')
    assert.equal(body.properties.backup.properties.retention.minimum, 1)
    assert.equal(body.properties.backup.properties.retention.maximum, 365)
    assert.equal(body.properties.sending.properties.timezone.description, 'IANA time zone name')
    const limit = document.paths['/api/v1/activity'].get.parameters.find((parameter: any) => parameter.name === 'limit')
    assert.deepInclude(limit, { in: 'query', required: false })
    assert.equal(limit.schema.maximum, 200)
  })
})

/** A message as GET /api/v1/messages/{id} documents it. */
const documentedMessage = {
  id: '01JAAAAAAAAAAAAAAAAAAAAAAA',
  conversationId: '01JBBBBBBBBBBBBBBBBBBBBBBB',
  direction: 'out',
  category: 'transactional',
  phone: '+33612345678',
  body: 'hello',
  encoding: 'gsm7',
  segments: 1,
  status: 'queued',
  attempts: 0,
  createdAt: '2026-05-04T09:30:00.000Z',
}

function messageAnswer(overrides: Partial<Answer> = {}): Answer {
  return {
    method: 'GET',
    url: '/api/v1/messages/01JAAAAAAAAAAAAAAAAAAAAAAA',
    status: 200,
    contentType: 'application/json; charset=utf-8',
    body: documentedMessage,
    hasBody: true,
    ...overrides,
  }
}

/** A loopback server that answers every request with the given status and JSON body. */
async function wrongServer(status: number, body: unknown) {
  const server = createServer((_request, response) => {
    response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((resolve) => server.close(resolve)) }
}

test.group('Answers checked against the document', () => {
  test('a documented answer passes', async ({ assert }) => {
    const contract = await answerContract()
    assert.deepEqual(contract.problemsWith(messageAnswer()), [])
    assert.deepEqual(
      contract.problemsWith(
        messageAnswer({ status: 404, body: { error: { code: 'NOT_FOUND', message: 'Message not found', requestId: 'r-1' } } })
      ),
      []
    )
  })

  test('a wrong body fails, naming operation, status and schema path', async ({ assert }) => {
    const contract = await answerContract()
    const wrongStatus = contract.problemsWith(messageAnswer({ body: { ...documentedMessage, status: 'lost', segments: '1' } }))
    assert.lengthOf(wrongStatus, 1)
    assert.include(wrongStatus[0], 'GET /api/v1/messages/{id} (getMessage) answered 200')
    assert.include(wrongStatus[0], "responses.200.content['application/json'].schema")
    assert.include(wrongStatus[0], 'at /status: must be equal to one of the allowed values')
    assert.include(wrongStatus[0], '[schema #/components/schemas/Message/properties/status/enum]')
    assert.include(wrongStatus[0], 'at /segments: must be integer')

    const { createdAt: _missing, ...withoutDate } = documentedMessage
    assert.match(contract.problemsWith(messageAnswer({ body: withoutDate }))[0], /must have required property 'createdAt'/)
    assert.match(contract.problemsWith(messageAnswer({ body: { ...documentedMessage, createdAt: 'yesterday' } }))[0], /at \/createdAt: must match format "date-time"/)
    assert.throws(() => contract.assertMatches(messageAnswer({ body: [] })), /getMessage\) answered 200/)
  })

  test('a field the document does not name fails', async ({ assert }) => {
    const contract = await answerContract()
    const [problem] = contract.problemsWith(messageAnswer({ body: { ...documentedMessage, internalNote: 'x' } }))
    assert.include(problem, 'must NOT have unevaluated properties (internalNote)')
  })

  test('an undocumented status, a code missing from x-error-codes and a wrong error body fail', async ({ assert }) => {
    const contract = await answerContract()
    const conflict = { error: { code: 'MESSAGE_NOT_FAILED', message: 'Only a failed message can be retried', requestId: 'r-1' } }
    assert.match(contract.problemsWith(messageAnswer({ status: 409, body: conflict }))[0], /getMessage\) answered 409 MESSAGE_NOT_FAILED, a status its document does not list/)
    const [wrongCode] = contract.problemsWith(messageAnswer({ status: 404, body: { error: { ...conflict.error, code: 'GONE' } } }))
    assert.include(wrongCode, 'answered 404 GONE, a code its x-error-codes do not list (listed: ')
    const [otherStatus] = contract.problemsWith(messageAnswer({ status: 404, body: { error: { ...conflict.error, code: 'MISSING_API_KEY' } } }))
    assert.include(otherStatus, 'answered 404 MISSING_API_KEY, a code its x-error-codes do not list under 404 (listed: NOT_FOUND)')
    const [noRequestId] = contract.problemsWith(messageAnswer({ status: 404, body: { error: { code: 'NOT_FOUND', message: 'x' } } }))
    assert.include(noRequestId, "at /error: must have required property 'requestId' [schema #/components/schemas/Error/properties/error/required]")
    const [unknownRoute] = contract.problemsWith({ ...messageAnswer(), url: '/api/v1/nowhere', status: 404, body: { message: 'Not found' } })
    assert.include(unknownRoute, 'the error body does not match the Error schema')
    assert.deepEqual(contract.problemsWith(messageAnswer({ method: 'DELETE', status: 204, contentType: undefined, body: '', hasBody: false })), [])
    assert.match(contract.problemsWith(messageAnswer({ method: 'DELETE', status: 204 }))[0], /deleteMessage\) answered 204 with a body/)
    assert.match(contract.problemsWith(messageAnswer({ contentType: 'text/plain', body: 'hello' }))[0], /as text\/plain; the document lists application\/json/)
  })

  test('an answer without its documented X-Request-Id header fails', async ({ assert }) => {
    const contract = await answerContract()
    assert.deepEqual(contract.problemsWith(messageAnswer({ headers: { 'x-request-id': 'r-1' } })), [])
    assert.deepEqual(contract.problemsWith(messageAnswer({ headers: {} })), ['GET /api/v1/messages/{id} (getMessage) answered 200 without its documented X-Request-Id header'])
  })

  test("a plain request to the phones' socket is checked like any other: 426 UPGRADE_REQUIRED", async ({ client, assert }) => {
    const response = await client.get('/api/v1/devices/socket')
    response.assertStatus(426)
    assert.equal(response.body().error.code, 'UPGRADE_REQUIRED')
  })

  test('every api client answer goes through the check', async ({ client, assert }) => {
    const wrong = await wrongServer(200, { ...documentedMessage, status: 'lost' })
    try {
      await assert.rejects(() => client.get(`${wrong.url}/api/v1/messages/01JAAAAAAAAAAAAAAAAAAAAAAA`), /getMessage\) answered 200/)
      await assert.rejects(() => checkedFetch(`${wrong.url}/api/v1/messages/01JAAAAAAAAAAAAAAAAAAAAAAA`), /getMessage\) answered 200/)
    } finally {
      await wrong.close()
    }
  })

  test('x-error-codes of an operation gather the codes of all its refusals', async ({ client, assert }) => {
    const document = (await client.get('/api-docs/openapi.json')).body()
    for (const [path, operations] of Object.entries<Record<string, any>>(document.paths)) {
      for (const [method, operation] of Object.entries<any>(operations)) {
        const perStatus = Object.values<any>(operation.responses).flatMap((response) => response['x-error-codes'] ?? [])
        assert.deepEqual(operation['x-error-codes'], [...new Set(perStatus)].sort(), `${method} ${path}`)
      }
    }
  })
})

test.group('Interactive reference', () => {
  test('/api/v1/ is an HTML page readable without sign-in, loading only local assets', async ({ client, assert }) => {
    const response = await client.get('/api/v1/')
    response.assertStatus(200)
    assert.match(response.header('content-type') ?? '', /^text\/html/)
    const html = response.text()
    assert.notMatch(html, /(src|href)="(https?:)?\/\//)
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map(([, url]) => url)
    assert.includeMembers(assets, ['/api-docs/assets/swagger-ui-bundle.js', '/api-docs/assets/swagger-ui.css', '/api-docs/assets/reference.js'])
    for (const asset of assets) {
      const served = await client.get(asset)
      served.assertStatus(200)
    }
    const script = await client.get('/api-docs/assets/reference.js')
    assert.include(script.text(), "'/api-docs/openapi.json'")
  })

  test('an unknown asset is 404 in the error format', async ({ client, assert }) => {
    for (const name of ['nope.js', '__proto__', 'constructor']) {
      const response = await client.get(`/api-docs/assets/${name}`)
      response.assertStatus(404)
      assert.equal(response.body().error.code, 'NOT_FOUND')
    }
  })
})

test.group('OpenAPI document: the device resource', () => {
  test('every field of a device, its SIMs, battery and text options says what it means', async ({ client, assert }) => {
    const schemas = (await client.get('/api-docs/openapi.json')).body().components.schemas
    const undescribed: string[] = []
    const walk = (schema: any, path: string) => {
      for (const [name, property] of Object.entries<any>(schema.properties ?? {})) {
        if (typeof property.description !== 'string' || property.description.length < 10) undescribed.push(`${path}.${name}`)
        walk(property, `${path}.${name}`)
        if (property.items) walk(property.items, `${path}.${name}[]`)
        for (const branch of property.oneOf ?? []) walk(branch, `${path}.${name}`)
      }
    }
    walk(schemas.Device, 'Device')
    assert.deepEqual(undescribed, [])
    assert.includeMembers(Object.keys(schemas.Device.properties), ['id', 'name', 'model', 'appVersion', 'enabled', 'status', 'lastSeenAt', 'battery', 'signal', 'sims', 'textOptions', 'createdAt'])
  })
})
