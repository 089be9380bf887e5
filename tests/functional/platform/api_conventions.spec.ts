import { test } from '@japa/runner'
import { connect } from 'node:net'
import { request as httpRequest } from 'node:http'
import db from '@adonisjs/lucid/services/db'
import { useTestKeys, testKeys } from '#tests/helpers/callers'
import { MAX_BODY_BYTES } from '#core/http/body_guard_middleware'

const port = Number(process.env.PORT)

/** Sends raw bytes on a real socket and resolves with everything the server answered. */
function rawExchange(head: string, body: Buffer | string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1')
    let answer = ''
    socket.setEncoding('utf8')
    socket.on('data', (chunk) => {
      answer += chunk
      // Once the status line and body are in, stop: the server may keep the socket.
      if (/\r\n\r\n[\s\S]*\}$/.test(answer)) socket.destroy()
    })
    socket.on('close', () => resolve(answer))
    socket.on('error', (error) => (answer ? resolve(answer) : reject(error)))
    socket.write(head)
    socket.write(body)
  })
}

function assertErrorShape(assert: any, body: any, code: string) {
  assert.properties(body, ['error'])
  assert.equal(body.error.code, code)
  assert.isString(body.error.message)
  assert.isString(body.error.requestId)
  assert.notProperty(body.error, 'stack')
}

test.group('API conventions', (group) => {
  group.setup(() => useTestKeys())

  test('GET /health answers 200 without authentication, with X-Request-Id', async ({ client, assert }) => {
    const response = await client.get('/health')
    response.assertStatus(200)
    response.assertBody({ status: 'ok', storage: 'ok', database: 'ok' })
    assert.match(response.header('x-request-id') ?? '', /^[0-9a-f-]{36}$/)
  })

  test('an unknown route answers 404 NOT_FOUND in the error format, requestId equal to the header', async ({ client, assert }) => {
    for (const [method, path] of [
      ['get', '/api/v1/nothing-here'],
      ['post', '/api/v1/health'],
      ['delete', '/no/such/path'],
    ] as const) {
      const response = await client[method](path)
      response.assertStatus(404)
      assertErrorShape(assert, response.body(), 'NOT_FOUND')
      assert.equal(response.body().error.requestId, response.header('x-request-id'))
    }
  })

  test('malformed JSON is 400 VALIDATION_ERROR and the answer never quotes the body', async ({ client, assert }) => {
    const response = await client
      .patch('/api/v1/settings')
      .header('x-api-key', testKeys.admin)
      .header('content-type', 'application/json')
      .json('{"general": {"gatewayName": "+33612345678 secret text"' as any)
    response.assertStatus(400)
    assertErrorShape(assert, response.body(), 'VALIDATION_ERROR')
    assert.notInclude(JSON.stringify(response.body()), '33612345678')
    assert.notInclude(JSON.stringify(response.body()), 'secret text')
  })

  test('a JSON value that is not an object is 400 VALIDATION_ERROR', async ({ client, assert }) => {
    const response = await client
      .patch('/api/v1/settings')
      .header('x-api-key', testKeys.admin)
      .header('content-type', 'application/json')
      .json('"just a string"' as any)
    response.assertStatus(400)
    assertErrorShape(assert, response.body(), 'VALIDATION_ERROR')
  })

  test('a declared body over 2 MiB is 413 PAYLOAD_TOO_LARGE before the body is sent', async ({ assert }) => {
    // Only the headers and 10 bytes are sent: the answer must come without the other 2 MiB.
    const answer = await rawExchange(
      `PATCH /api/v1/settings HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-KEY: ${testKeys.admin}\r\nContent-Type: application/json\r\nContent-Length: ${MAX_BODY_BYTES + 1}\r\n\r\n`,
      '{"general":'
    )
    assert.match(answer, /^HTTP\/1\.1 413 /)
    const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))
    assertErrorShape(assert, body, 'PAYLOAD_TOO_LARGE')
    assert.match(answer, /x-request-id: \S+/i)
  })

  test('an upload route takes its own larger cap: a CSV declared over 20 MiB is 413 saying so, before it is sent', async ({ assert }) => {
    const answer = await rawExchange(
      `POST /api/v1/contacts/imports HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-KEY: ${testKeys.admin}\r\nContent-Type: multipart/form-data; boundary=x\r\nContent-Length: ${21 * 1024 * 1024}\r\n\r\n`,
      '--x\r\n'
    )
    assert.match(answer, /^HTTP\/1\.1 413 /)
    const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))
    assertErrorShape(assert, body, 'PAYLOAD_TOO_LARGE')
    assert.equal(body.error.message, 'The request body is over 20 MiB')
  })

  test('a chunked body that grows past 2 MiB is 413 PAYLOAD_TOO_LARGE', async ({ assert }) => {
    const status = await new Promise<number>((resolve, reject) => {
      const request = httpRequest(
        {
          host: '127.0.0.1',
          port,
          agent: false,
          method: 'PATCH',
          path: '/api/v1/settings',
          headers: { 'x-api-key': testKeys.admin, 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
        },
        (response) => {
          let text = ''
          response.on('data', (chunk) => (text += chunk))
          response.on('end', () => {
            assertErrorShape(assert, JSON.parse(text), 'PAYLOAD_TOO_LARGE')
            resolve(response.statusCode!)
          })
        }
      )
      request.on('error', (error) => ((error as NodeJS.ErrnoException).code === 'EPIPE' ? undefined : reject(error)))
      const chunk = Buffer.alloc(256 * 1024, 'a')
      request.write('{"general":{"gatewayName":"')
      let sent = 0
      const pump = () => {
        while (sent < MAX_BODY_BYTES + 512 * 1024) {
          sent += chunk.length
          if (!request.write(chunk)) return request.once('drain', pump)
        }
        request.end('"}}')
      }
      pump()
    })
    assert.equal(status, 413)
  })

  test('a body just under 2 MiB is read and judged on its content', async ({ client, assert }) => {
    const name = 'x'.repeat(MAX_BODY_BYTES - 200)
    const response = await client
      .patch('/api/v1/settings')
      .header('x-api-key', testKeys.admin)
      .json({ general: { gatewayName: name } })
    response.assertStatus(400)
    assertErrorShape(assert, response.body(), 'VALIDATION_ERROR')
    assert.equal(response.body().error.details[0].field, 'general.gatewayName')
  })

  test('a body that is not JSON is 415 in the error format', async ({ client, assert }) => {
    const response = await client
      .patch('/api/v1/settings')
      .header('x-api-key', testKeys.admin)
      .form({ general: 'x' })
    response.assertStatus(415)
    assertErrorShape(assert, response.body(), 'UNSUPPORTED_MEDIA_TYPE')
  })

  test('a validation failure is 400 VALIDATION_ERROR whose details name the field and rule', async ({ client, assert }) => {
    const response = await client.get('/api/v1/activity').qs({ limit: 0 }).header('x-api-key', testKeys.read)
    response.assertStatus(400)
    assertErrorShape(assert, response.body(), 'VALIDATION_ERROR')
    assert.deepInclude(response.body().error.details[0], { field: 'limit', rule: 'range' })
  })

  test('an unexpected fault is 500 INTERNAL_ERROR with no stack or internals', async ({ client, assert }) => {
    // A real fault: the table behind the route disappears under the running gateway.
    await db.rawQuery('ALTER TABLE activity_entries RENAME TO activity_entries_away')
    try {
      const response = await client.get('/api/v1/activity').header('x-api-key', testKeys.read)
      response.assertStatus(500)
      assertErrorShape(assert, response.body(), 'INTERNAL_ERROR')
      const text = JSON.stringify(response.body())
      assert.notInclude(text, 'activity_entries')
      assert.notInclude(text, 'SQLITE')
      assert.notInclude(text, '.ts:')
      assert.notProperty(response.body().error, 'details')
    } finally {
      await db.rawQuery('ALTER TABLE activity_entries_away RENAME TO activity_entries')
    }
  })

  test('a plain caller-supplied X-Request-Id is kept; a forged one is replaced', async ({ client, assert }) => {
    const kept = await client.get('/health').header('x-request-id', 'client-trace-12345678')
    assert.equal(kept.header('x-request-id'), 'client-trace-12345678')

    const forged = await client.get('/api/v1/nope').header('x-request-id', 'x" level=fatal msg=forged')
    assert.notEqual(forged.header('x-request-id'), 'x" level=fatal msg=forged')
    assert.equal(forged.body().error.requestId, forged.header('x-request-id'))
  })

  test('protected routes: no key is 401 MISSING_API_KEY, an unknown key 403 INVALID_API_KEY', async ({ client, assert }) => {
    const missing = await client.get('/api/v1/activity')
    missing.assertStatus(401)
    assertErrorShape(assert, missing.body(), 'MISSING_API_KEY')

    const unknown = await client.get('/api/v1/activity').header('x-api-key', 'not-a-key-of-this-gateway')
    unknown.assertStatus(403)
    assertErrorShape(assert, unknown.body(), 'INVALID_API_KEY')
  })

  test('a key in the query string is never read', async ({ client, assert }) => {
    const response = await client.get('/api/v1/activity').qs({ api_key: testKeys.admin, 'x-api-key': testKeys.admin })
    response.assertStatus(401)
    assertErrorShape(assert, response.body(), 'MISSING_API_KEY')
  })

  test('a scope too low is 403 FORBIDDEN_SCOPE naming the required scope', async ({ client, assert }) => {
    const response = await client.get('/api/v1/logs/technical').header('x-api-key', testKeys.send)
    response.assertStatus(403)
    assertErrorShape(assert, response.body(), 'FORBIDDEN_SCOPE')
    assert.equal(response.body().error.details.requiredScope, 'admin')
  })

  test('an unauthenticated caller never makes the gateway parse a body', async ({ client, assert }) => {
    const response = await client.patch('/api/v1/settings').header('content-type', 'application/json').json('{broken' as any)
    response.assertStatus(401)
    assertErrorShape(assert, response.body(), 'MISSING_API_KEY')
  })
})
