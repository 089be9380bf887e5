import { test } from '@japa/runner'
import { existsSync, readFileSync } from 'node:fs'
import { get } from 'node:http'
import { gunzipSync } from 'node:zlib'
import app from '@adonisjs/core/services/app'

/** The dashboard's build, as `npm test` makes it before the suites (npm run build:dashboard). */
function builtIndex(): string {
  const path = app.publicPath('index.html')
  if (!existsSync(path)) throw new Error('The dashboard is not built: run `npm run build:dashboard` first (npm test does)')
  return readFileSync(path, 'utf8')
}

/** A raw GET (no client that decompresses on its own): status, headers and the bytes as sent. */
function rawGet(path: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    get(new URL(path, process.env.GATEWAY_PUBLIC_URL), { headers }, (response) => {
      const chunks: Buffer[] = []
      response.on('data', (chunk) => chunks.push(chunk))
      response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body: Buffer.concat(chunks) }))
    }).on('error', reject)
  })
}

test.group('The dashboard served by the gateway', () => {
  test('GET / answers the dashboard, checked again on every load (no-cache)', async ({ client, assert }) => {
    const index = builtIndex()
    const response = await client.get('/')
    response.assertStatus(200)
    assert.match(response.header('content-type') ?? '', /text\/html/)
    assert.equal(response.header('cache-control'), 'no-cache')
    assert.equal(response.text(), index)
  })

  test('hashed assets are cached for a year, immutable', async ({ client, assert }) => {
    const script = builtIndex().match(/src="(\/assets\/[^"]+\.js)"/)?.[1]
    assert.isString(script)
    const response = await client.get(script!)
    response.assertStatus(200)
    assert.match(response.header('content-type') ?? '', /javascript/)
    assert.equal(response.header('cache-control'), 'public, max-age=31536000, immutable')
  })

  test('the dashboard is sent gzipped to a browser that accepts it, as is to others; API answers are not compressed', async ({ assert }) => {
    const script = builtIndex().match(/src="(\/assets\/[^"]+\.js)"/)![1]
    const plain = readFileSync(app.publicPath(script.slice(1)))
    const zipped = await rawGet(script, { 'accept-encoding': 'gzip' })
    assert.equal(zipped.status, 200)
    assert.equal(zipped.headers['content-encoding'], 'gzip')
    assert.match(String(zipped.headers['vary']), /accept-encoding/i)
    assert.equal(zipped.headers['cache-control'], 'public, max-age=31536000, immutable')
    assert.isBelow(zipped.body.length, plain.length / 2)
    assert.isTrue(gunzipSync(zipped.body).equals(plain))

    // index.html is under compression's 1 KB threshold: the bytes saved would not pay for the work.
    const page = await rawGet('/phones', { 'accept-encoding': 'gzip' })
    assert.isBelow(builtIndex().length, 1024)
    assert.isUndefined(page.headers['content-encoding'])
    assert.equal(page.body.toString('utf8'), builtIndex())

    const asIs = await rawGet(script, {})
    assert.isUndefined(asIs.headers['content-encoding'])
    assert.isTrue(asIs.body.equals(plain))

    const api = await rawGet('/api/v1', { 'accept-encoding': 'gzip' })
    assert.equal(api.status, 200)
    assert.isUndefined(api.headers['content-encoding'])
  })

  test("a page of the dashboard's own router reloads fine: index.html, not a 404", async ({ client, assert }) => {
    const index = builtIndex()
    for (const path of ['/phones', '/sign-in', '/messages/123?status=failed']) {
      const response = await client.get(path)
      response.assertStatus(200)
      assert.equal(response.header('cache-control'), 'no-cache')
      assert.equal(response.text(), index)
    }
  })

  test("the API's paths keep their JSON 404; a missing file is no page either", async ({ client, assert }) => {
    for (const path of ['/api/v1/nothing-here', '/api', '/api-docs/nothing', '/__transmit/nothing', '/health/nothing', '/assets/missing-abc123.js', '/favicon.ico']) {
      const response = await client.get(path)
      assert.equal(response.status(), 404, path)
      assert.equal(response.body().error.code, 'NOT_FOUND', path)
    }
    const written = await client.post('/phones').json({})
    written.assertStatus(404)
    assert.equal(written.body().error.code, 'NOT_FOUND')
  })

  test('the gateway\'s own non-API routes still answer as themselves', async ({ client, assert }) => {
    const health = await client.get('/health')
    health.assertStatus(200)
    assert.deepEqual(health.body(), { status: 'ok', storage: 'ok', database: 'ok' })
    const reference = await client.get('/api/v1')
    reference.assertStatus(200)
    assert.notEqual(reference.text(), builtIndex())
  })
})
