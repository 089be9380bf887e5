import { test } from '@japa/runner'
import { existsSync, readFileSync } from 'node:fs'
import app from '@adonisjs/core/services/app'

/** The dashboard's build, as `npm test` makes it before the suites (npm run build:dashboard). */
function builtIndex(): string {
  const path = app.publicPath('index.html')
  if (!existsSync(path)) throw new Error('The dashboard is not built: run `npm run build:dashboard` first (npm test does)')
  return readFileSync(path, 'utf8')
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
    assert.deepEqual(health.body(), { status: 'ok' })
    const reference = await client.get('/api/v1')
    reference.assertStatus(200)
    assert.notEqual(reference.text(), builtIndex())
  })
})
