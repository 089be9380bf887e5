import { test } from '@japa/runner'
import { existsSync } from 'node:fs'
import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import app from '@adonisjs/core/services/app'
import router from '@adonisjs/core/services/router'
import { RouteRegistry } from '#core/contract/route_registry'
import { assertAllowed, type Caller, type ProtectedAccess, type Role, type Scope } from '#core/http/access'
import type { RouteContract } from '#core/contract/route_contract'
import { permissionCatalogue } from '#core/http/permissions'
import { asBrowser, cookiesFrom, signInAs, testKeys, useTestKeys, type BrowserSession } from '#tests/helpers/callers'

type CallerName = `key:${Scope}` | `session:${Role}`
const callerNames: CallerName[] = ['key:read', 'key:send', 'key:admin', 'session:readonly', 'session:operator', 'session:superadmin']

/** Codes that mean "the access layer refused": an allowed caller must never get one. */
const ACCESS_REFUSALS = ['MISSING_API_KEY', 'INVALID_API_KEY', 'FORBIDDEN_SCOPE', 'INVALID_CSRF_TOKEN', 'IP_NOT_ALLOWED', 'LICENSE_BLOCKED']

function callerOf(name: CallerName): Caller {
  const [type, value] = name.split(':')
  return type === 'key' ? { type: 'api_key', id: 'matrix', scope: value as Scope } : { type: 'session', id: 'matrix', role: value as Role }
}

function isAllowedByTable(name: CallerName, access: ProtectedAccess): boolean {
  try {
    assertAllowed(callerOf(name), access)
    return true
  } catch {
    return false
  }
}

/** Every protected /api/v1 route the router answers, with the contract that declares its access. */
function protectedRoutes(): RouteContract[] {
  const routed = new Set<string>()
  for (const routes of Object.values(router.toJSON())) {
    for (const route of routes) {
      for (const method of route.methods) if (method !== 'HEAD') routed.add(`${method} ${route.pattern}`)
    }
  }
  return registry.contracts.filter((contract) => contract.access.kind === 'protected' && routed.has(`${contract.method} ${contract.path}`))
}

let registry: RouteRegistry

const everyone = callerNames
const readers = everyone
const senders: CallerName[] = ['key:send', 'key:admin', 'session:operator', 'session:superadmin']
const adminOrOperator: CallerName[] = ['key:admin', 'session:operator', 'session:superadmin']
const adminOrSuperadmin: CallerName[] = ['key:admin', 'session:superadmin']
const superadminSession: CallerName[] = ['session:superadmin']

/**
 * Written by hand from the documented rules (docs/api-conventions.md, Authentication, and each
 * module's page in docs/), not derived from the permission table: the table must agree with this,
 * and the router with the table. These are the routes of the modules the gateway started with; a
 * module added since declares its own beside its tests (moduleExpectations below).
 */
const handWritten: Record<string, CallerName[]> = {
  'GET /api/v1/settings': ['key:admin', 'session:operator', 'session:superadmin'],
  'PATCH /api/v1/settings': adminOrSuperadmin,
  'GET /api/v1/activity': readers,
  'GET /api/v1/logs/technical': adminOrSuperadmin,
  'GET /api/v1/auth/me': everyone,
  // One's own account (password, other sessions): every signed-in person, never a key.
  'PUT /api/v1/auth/password': ['session:readonly', 'session:operator', 'session:superadmin'],
  'POST /api/v1/auth/logout-others': ['session:readonly', 'session:operator', 'session:superadmin'],
  // Accounts: changes need a signed-in superadmin, never a key; an admin key may list.
  'GET /api/v1/users/assignable': readers,
  'GET /api/v1/contacts/fields': readers,
  'GET /api/v1/templates': readers,
  'POST /api/v1/templates': adminOrOperator,
  'POST /api/v1/templates/preview': readers,
  'GET /api/v1/templates/:id': readers,
  'PATCH /api/v1/templates/:id': adminOrOperator,
  'DELETE /api/v1/templates/:id': adminOrOperator,
  'GET /api/v1/activity/actors': readers,
  'GET /api/v1/rules': readers,
  'POST /api/v1/rules': adminOrOperator,
  'PUT /api/v1/rules/order': adminOrOperator,
  'GET /api/v1/rules/runs': readers,
  'GET /api/v1/rules/:id': readers,
  'PATCH /api/v1/rules/:id': adminOrOperator,
  'DELETE /api/v1/rules/:id': adminOrOperator,
  'POST /api/v1/rules/:id/secret': adminOrOperator,
  'POST /api/v1/rules/:id/test': readers,
  'GET /api/v1/groups': readers,
  'POST /api/v1/groups': adminOrOperator,
  'GET /api/v1/groups/:id': readers,
  'PATCH /api/v1/groups/:id': adminOrOperator,
  'DELETE /api/v1/groups/:id': adminOrOperator,
  'GET /api/v1/groups/:id/members': readers,
  'POST /api/v1/groups/:id/members': adminOrOperator,
  'POST /api/v1/groups/:id/members/remove': adminOrOperator,
  'GET /api/v1/users': adminOrSuperadmin,
  'POST /api/v1/users': superadminSession,
  'PATCH /api/v1/users/:id': superadminSession,
  'DELETE /api/v1/users/:id': superadminSession,
  // API keys: managed from a superadmin session; listed also by an admin key.
  'GET /api/v1/api-keys': adminOrSuperadmin,
  'POST /api/v1/api-keys': superadminSession,
  'PATCH /api/v1/api-keys/:id': superadminSession,
  'POST /api/v1/api-keys/:id/rotate': superadminSession,
  'DELETE /api/v1/api-keys/:id': superadminSession,
  // Messages: read scope reads; send scope sends and retries (operators send); deleting is admin.
  'POST /api/v1/messages': senders,
  'GET /api/v1/messages': readers,
  'GET /api/v1/messages/:id': readers,
  'POST /api/v1/messages/:id/retry': senders,
  'DELETE /api/v1/messages/:id': adminOrOperator,
  // Statistics: every read (docs/statistics.md).
  'GET /api/v1/statistics/messages': readers,
  'GET /api/v1/statistics/messages/breakdown': readers,
  'GET /api/v1/statistics/delivery-rate': readers,
  'GET /api/v1/statistics/failures': readers,
  'GET /api/v1/statistics/latency': readers,
  'GET /api/v1/statistics/links': readers,
  'GET /api/v1/statistics/opt-outs': readers,
  // Contacts and conversations: readonly reads them; changes are admin (configuration).
  'GET /api/v1/contacts': readers,
  'POST /api/v1/contacts': adminOrOperator,
  'GET /api/v1/contacts/:id': readers,
  'PATCH /api/v1/contacts/:id': adminOrOperator,
  'DELETE /api/v1/contacts/:id': adminOrOperator,
  'POST /api/v1/contacts/opt-out': adminOrOperator,
  // Campaigns: every role reads them; operators and admins change them.
  'GET /api/v1/campaigns': readers,
  'POST /api/v1/campaigns': adminOrOperator,
  'GET /api/v1/campaigns/:id': readers,
  'PATCH /api/v1/campaigns/:id': adminOrOperator,
  'DELETE /api/v1/campaigns/:id': adminOrOperator,
  'GET /api/v1/campaigns/:id/review': readers,
  'POST /api/v1/campaigns/:id/launch': adminOrOperator,
  'POST /api/v1/campaigns/:id/pause': adminOrOperator,
  'POST /api/v1/campaigns/:id/resume': adminOrOperator,
  'POST /api/v1/campaigns/:id/cancel': adminOrOperator,
  'POST /api/v1/campaigns/:id/retry-failed': adminOrOperator,
  'GET /api/v1/campaigns/:id/recipients': readers,
  'GET /api/v1/campaigns/:id/recipients/export': readers,
  'GET /api/v1/conversations': readers,
  'GET /api/v1/conversations/:id': readers,
  'GET /api/v1/conversations/:id/messages': readers,
  'PATCH /api/v1/conversations/:id': adminOrOperator,
  // Phones: read scope reads; pairing codes and changes are admin, or an operator session.
  'POST /api/v1/devices/pairing-codes': adminOrOperator,
  'GET /api/v1/devices': readers,
  'GET /api/v1/devices/:id': readers,
  'PATCH /api/v1/devices/:id': adminOrOperator,
  'DELETE /api/v1/devices/:id': adminOrOperator,
  // Webhooks: the page and the delivery log are open to every role and to read scope; changes
  // and replay are admin scope, or an operator or superadmin session (docs/webhooks.md).
  'GET /api/v1/webhooks': readers,
  'POST /api/v1/webhooks': adminOrOperator,
  'GET /api/v1/webhooks/:id': readers,
  'PATCH /api/v1/webhooks/:id': adminOrOperator,
  'DELETE /api/v1/webhooks/:id': adminOrOperator,
  'GET /api/v1/webhooks/deliveries': readers,
  'GET /api/v1/webhooks/deliveries/failing': readers,
  'GET /api/v1/webhooks/events': readers,
  'POST /api/v1/webhooks/deliveries/:id/replay': adminOrOperator,
  // Exports: admin scope, and every dashboard role; the database export (accounts inside) is
  // the superadmin's only (docs/exports.md).
  'GET /api/v1/export/messages': ['key:admin', 'session:readonly', 'session:operator', 'session:superadmin'],
  'GET /api/v1/export/contacts': ['key:admin', 'session:readonly', 'session:operator', 'session:superadmin'],
  'GET /api/v1/contacts/export': ['key:admin', 'session:readonly', 'session:operator', 'session:superadmin'],
  'GET /api/v1/export/conversations': ['key:admin', 'session:readonly', 'session:operator', 'session:superadmin'],
  'GET /api/v1/export/database': adminOrSuperadmin,
  // Backups hold the accounts: admin scope or a superadmin session.
  'POST /api/v1/backups': adminOrSuperadmin,
  'GET /api/v1/backups': adminOrSuperadmin,
  'GET /api/v1/backups/attempts': adminOrSuperadmin,
  'GET /api/v1/backups/schedule': adminOrSuperadmin,
  'POST /api/v1/backups/:name/restore': adminOrSuperadmin,
  'GET /api/v1/backups/restore': adminOrSuperadmin,
  'DELETE /api/v1/backups/restore': adminOrSuperadmin,
  'GET /api/v1/backups/:name/download': adminOrSuperadmin,
}

/** Where the expectations of one route come from, for the failure messages. */
interface Expectation {
  callers: CallerName[]
  source: string
}

const EXPECTED_CALLERS_FILE = 'expected_callers.ts'

/**
 * Each module's own expectations: tests/functional/<module>/expected_callers.ts, whose default
 * export maps `METHOD /path` to its expected callers, written by hand like the ones above
 * (`node ace make:module` writes it for the module's two routes; docs/adding-a-module.md).
 */
async function moduleExpectations(): Promise<Array<{ source: string; expected: Record<string, string[]> }>> {
  const functional = app.makePath('tests/functional')
  const found: Array<{ source: string; expected: Record<string, string[]> }> = []
  for (const entry of await readdir(functional, { withFileTypes: true })) {
    const file = join(functional, entry.name, EXPECTED_CALLERS_FILE)
    if (!entry.isDirectory() || !existsSync(file)) continue
    const expected = (await import(pathToFileURL(file).href)).default
    found.push({ source: `tests/functional/${entry.name}/${EXPECTED_CALLERS_FILE}`, expected })
  }
  return found.sort((a, b) => a.source.localeCompare(b.source))
}

/**
 * Every expectation, the hand-written ones above and each module's file; answers the problems
 * too: a route expected twice, a caller name that is none, an expectation that is no list.
 */
async function allExpectations(): Promise<{ expectations: Map<string, Expectation>; problems: string[] }> {
  const expectations = new Map<string, Expectation>()
  const problems: string[] = []
  const add = (source: string, expected: Record<string, unknown>) => {
    for (const [route, callers] of Object.entries(expected)) {
      const earlier = expectations.get(route)
      if (earlier) {
        problems.push(`${route} is expected both in ${earlier.source} and in ${source}`)
        continue
      }
      if (!Array.isArray(callers)) {
        problems.push(`${source}: ${route} maps to no list of callers`)
        continue
      }
      const unknown = callers.filter((name) => !callerNames.includes(name as CallerName))
      if (unknown.length > 0) problems.push(`${source}: ${route} names unknown callers ${unknown.join(', ')} (one of ${callerNames.join(', ')})`)
      expectations.set(route, { callers: callers as CallerName[], source })
    }
  }
  add('tests/functional/auth/permission_matrix.spec.ts', handWritten)
  for (const { source, expected } of await moduleExpectations()) {
    if (typeof expected !== 'object' || expected === null) problems.push(`${source} exports no default record of routes`)
    else add(source, expected)
  }
  return { expectations, problems }
}

test.group('Permission matrix: every route against every scope and role', (group) => {
  const sessions = new Map<Role, BrowserSession>()

  group.setup(async () => {
    await useTestKeys()
    registry = await app.container.make(RouteRegistry)
  })
  group.each.setup(async ({ context }) => {
    for (const role of ['readonly', 'operator', 'superadmin'] as const) {
      if (!sessions.has(role)) sessions.set(role, await signInAs(context.client, role))
    }
  })

  async function call(client: any, contract: RouteContract, name: CallerName) {
    const path = contract.path.replace(/:[A-Za-z0-9_]+/g, '999999999')
    let request = client[contract.method.toLowerCase()](path)
    if (['POST', 'PUT', 'PATCH'].includes(contract.method)) request = request.json({})
    const [type, value] = name.split(':')
    if (type === 'key') return request.header('x-api-key', testKeys[value as Scope])
    const session = sessions.get(value as Role)!
    const response = await asBrowser(request, session)
    // As a browser does: a route may renew the session cookie (POST /auth/logout-others).
    sessions.set(value as Role, cookiesFrom(response, session.cookie))
    return response
  }

  test('each caller gets exactly what the permission table says', async ({ client, assert }) => {
    const routes = protectedRoutes()
    assert.isAbove(routes.length, 10)
    for (const contract of routes) {
      const access = contract.access as ProtectedAccess
      for (const name of callerNames) {
        const response = await call(client, contract, name)
        const code = response.body()?.error?.code
        const label = `${name} → ${contract.method} ${contract.path} (${response.status()} ${code ?? ''})`
        if (isAllowedByTable(name, access)) {
          assert.notInclude(ACCESS_REFUSALS, code, label)
          assert.notEqual(response.status(), 401, label)
        } else {
          assert.equal(response.status(), 403, label)
          assert.equal(code, 'FORBIDDEN_SCOPE', label)
          if (name.startsWith('key:')) assert.property(response.body().error.details, 'requiredScope', label)
        }
      }
    }
  }).timeout(120_000)

  test('without credentials every protected route is 401 MISSING_API_KEY, an unknown key 403 INVALID_API_KEY', async ({ client, assert }) => {
    for (const contract of protectedRoutes()) {
      const path = contract.path.replace(/:[A-Za-z0-9_]+/g, '999999999')
      const anonymous = await client[contract.method.toLowerCase() as 'get'](path)
      assert.equal(anonymous.status(), 401, `${contract.method} ${contract.path}`)
      assert.equal(anonymous.body().error.code, 'MISSING_API_KEY')
      const unknown = await client[contract.method.toLowerCase() as 'get'](path).header('x-api-key', 'gw_not_a_key_of_this_gateway')
      assert.equal(unknown.status(), 403, `${contract.method} ${contract.path}`)
      assert.equal(unknown.body().error.code, 'INVALID_API_KEY')
    }
  }).timeout(60_000)

  test('every protected route takes its access from a permission a module registered', ({ assert }) => {
    const registered = new Map(permissionCatalogue.entries())
    for (const contract of protectedRoutes()) {
      const access = contract.access as ProtectedAccess
      const key = `${contract.method} ${contract.path}`
      assert.isString(access.permission, `${key} has an access rule of its own, not a named permission`)
      assert.deepEqual(registered.get(access.permission!), access, `${key}: ${access.permission} is not the registered rule`)
    }
  })

  test('every protected route has its expected callers written by hand, here or in its module\'s expected_callers.ts', async ({ assert }) => {
    const { expectations, problems } = await allExpectations()
    assert.deepEqual(problems, [], 'expectations that cannot be checked')
    const missing: string[] = []
    const routes = protectedRoutes()
    for (const contract of routes) {
      const route = `${contract.method} ${contract.path}`
      const expected = expectations.get(route)
      if (!expected) {
        missing.push(route)
        continue
      }
      const allowed = callerNames.filter((name) => isAllowedByTable(name, contract.access as ProtectedAccess))
      // In the order of callerNames, so a file may list its callers in any order.
      const wanted = callerNames.filter((name) => expected.callers.includes(name))
      assert.deepEqual(allowed, wanted, `${route} (expected in ${expected.source})`)
    }
    assert.deepEqual(
      missing,
      [],
      `protected routes no file expects: add them by hand to tests/functional/<module>/${EXPECTED_CALLERS_FILE} (docs/adding-a-module.md, Permissions)`
    )
    const answered = new Set(routes.map((contract) => `${contract.method} ${contract.path}`))
    const stale = [...expectations].filter(([route]) => !answered.has(route)).map(([route, { source }]) => `${route} (${source})`)
    assert.deepEqual(stale, [], 'expected callers of routes the router does not answer as protected routes: remove them or correct the route')
  })
})
