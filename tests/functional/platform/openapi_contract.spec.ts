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
