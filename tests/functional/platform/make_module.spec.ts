import { test } from '@japa/runner'
import { spawn, type ChildProcess } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import app from '@adonisjs/core/services/app'
import { firstApiKey, freePort, stop } from '#tests/helpers/gateway_process'
import { dashboardPages } from '#tests/unit/dashboard/dashboard_pages'
import { sqlOutsideStores } from '#tests/unit/core/data_access_rule'

/** Runs a command in the copy; answers its exit code and output. */
function run(cwd: string, command: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.on('data', (chunk) => (output += chunk))
    child.stderr.on('data', (chunk) => (output += chunk))
    child.on('close', (code) => resolve({ code, output }))
  })
}

async function waitForHealth(port: number, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 45_000
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the copy's gateway exited early:\n${output()}`)
    try {
      if ((await fetch(`http://127.0.0.1:${port}/health`)).status === 200) return
    } catch {}
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  throw new Error(`the copy's gateway did not answer /health:\n${output()}`)
}

/**
 * docs/adding-a-module.md, done for real: `node ace make:module price_lists` in a copy of the
 * working tree gives a module that type-checks, keeps the boundaries and its SQL in its store, and serves, with its routes,
 * permission, error, event and settings in the document; its dashboard page type-checks against
 * the copy's generated API types (vue-tsc) and is in the menu of every role its list operation
 * is open to; the tests that read every module (the unit suite, the dashboard's page registry
 * included, the permission matrix, the settings, the Activity vocabulary and the module's own)
 * pass in the copy without an edit; and nothing changes outside its folder, its page folder and
 * its tests but adonisrc.ts and docs/webhooks.md. A name of two words checks the names the scaffold derives (path, classes,
 * fields, error kind, event family).
 */
test.group('make:module', () => {
  test('a scaffolded module compiles, keeps the boundaries, serves its two routes, has a dashboard page in the menu, passes the tests of every module and touches two files outside itself', async ({ assert }) => {
    const source = fileURLToPath(app.appRoot)
    const scratch = mkdtempSync(join(tmpdir(), 'gateway-make-module-'))
    const copy = join(scratch, 'gateway')
    const git = ['-c', 'user.email=scaffold@gateway.test', '-c', 'user.name=scaffold', '-c', 'commit.gpgsign=false']
    let child: ChildProcess | null = null
    try {
      const tracked = (await run(source, 'git', ['ls-files', '-z'])).output.split('\0').filter(Boolean)
      assert.isAbove(tracked.length, 0)
      for (const file of tracked) {
        if (!existsSync(join(source, file))) continue
        mkdirSync(dirname(join(copy, file)), { recursive: true })
        cpSync(join(source, file), join(copy, file))
      }
      symlinkSync(join(source, 'node_modules'), join(copy, 'node_modules'))
      for (const args of [['init', '-q'], ['add', '-A'], [...git, 'commit', '-q', '-m', 'copy']]) {
        const done = await run(copy, 'git', args)
        assert.equal(done.code, 0, done.output)
      }

      const made = await run(copy, process.execPath, ['ace.js', 'make:module', 'price_lists'])
      assert.equal(made.code, 0, made.output)
      // Its SQL is in its store only, as every module's (docs/modules.md, Data access).
      assert.deepEqual(await sqlOutsideStores(copy, 'price_lists'), [])

      // The type check, the boundaries and the copy's gateway at once: they only read the copy.
      const port = await freePort()
      const env: NodeJS.ProcessEnv = { ...process.env, GATEWAY_DATA_DIR: join(scratch, 'data'), PORT: String(port), HOST: '127.0.0.1', NODE_ENV: 'production' }
      delete env.APP_KEY
      const typecheck = run(copy, process.execPath, [join(source, 'node_modules/typescript/bin/tsc'), '--noEmit'])
      const boundaries = run(copy, 'npm', ['run', 'boundaries', '--silent'])
      const started = spawn(process.execPath, ['--import=ts-node-maintained/register/esm', 'bin/server.ts'], { cwd: copy, env, stdio: ['ignore', 'pipe', 'pipe'] })
      child = started
      let output = ''
      started.stdout!.on('data', (chunk) => (output += chunk))
      started.stderr!.on('data', (chunk) => (output += chunk))
      await waitForHealth(port, started, () => output)

      const base = `http://127.0.0.1:${port}`
      const key = await firstApiKey(port)
      const headers = { 'x-api-key': key, 'content-type': 'application/json' }
      const created = await fetch(`${base}/api/v1/price-lists`, { method: 'POST', headers, body: JSON.stringify({ name: 'Summer' }) })
      assert.equal(created.status, 201)
      const item = (await created.json()) as { id: string; name: string }
      assert.equal(item.name, 'Summer')
      const listed = await fetch(`${base}/api/v1/price-lists`, { headers: { 'x-api-key': key } })
      assert.equal(listed.status, 200)
      assert.deepEqual(((await listed.json()) as { data: Array<{ id: string }> }).data.map(({ id }) => id), [item.id])
      assert.equal((await fetch(`${base}/api/v1/price-lists`)).status, 401)

      const document = (await (await fetch(`${base}/api-docs/openapi.json`)).json()) as any
      const operations = document.paths['/api/v1/price-lists']
      assert.equal(operations.get['x-permission'], 'price_lists.read')
      assert.equal(operations.post['x-permission'], 'price_lists.change')
      assert.include(operations.post['x-error-codes'], 'PRICE_LISTS_LIMIT_REACHED')
      assert.include(JSON.stringify(document.components.schemas.Settings ?? document), 'maxPriceLists')

      // The page folder declares its page; the menu lists a page for the roles its operation is
      // open to (dashboard/src/page_registry.ts), as the copy's document gives them.
      const rolesOf = new Map<string, string[]>()
      for (const methods of Object.values<Record<string, any>>(document.paths)) {
        for (const operation of Object.values(methods)) if (operation?.operationId) rolesOf.set(operation.operationId, operation['x-roles'] ?? [])
      }
      const page = dashboardPages(copy).find((entry) => entry.folder === 'price-lists')
      assert.deepEqual(page, { name: 'price-lists', path: 'price-lists', title: 'Price lists', needs: 'listPriceLists', group: 'data', order: 30, inMenu: true, folder: 'price-lists', file: 'PriceListsPage.vue' })
      for (const role of ['readonly', 'operator', 'superadmin']) {
        const menu = dashboardPages(copy).filter((entry) => entry.inMenu && rolesOf.get(entry.needs)?.includes(role))
        assert.include(menu.map((entry) => entry.name), 'price-lists', `the ${role} menu`)
      }
      assert.sameMembers(rolesOf.get('createPriceList')!, ['operator', 'superadmin'])

      const events = (await (await fetch(`${base}/api/v1/webhooks/events`, { headers: { 'x-api-key': key } })).json()) as { data: Array<{ name: string; family: string }> }
      assert.deepInclude(events.data.map(({ name, family }) => ({ name, family })), { name: 'price_list.created', family: 'PriceLists' })

      const settings = (await (await fetch(`${base}/api/v1/settings`, { headers: { 'x-api-key': key } })).json()) as Record<string, unknown>
      assert.deepEqual(settings.price_lists, { maxPriceLists: 1000 })
      await stop(started, 'SIGTERM')

      const testEnv: NodeJS.ProcessEnv = { ...process.env }
      delete testEnv.APP_KEY
      // The dashboard's type check: the API types generated from the copy's document (its own
      // throwaway data folder), then vue-tsc over every page, the scaffolded one included.
      const dashboardTypes = run(copy, 'npm', ['run', 'typecheck:dashboard', '--silent'], testEnv)
      const [typed, bounded, pagesTyped] = await Promise.all([typecheck, boundaries, dashboardTypes])
      assert.equal(typed.code, 0, `npx tsc --noEmit in the copy:\n${typed.output}`)
      assert.equal(bounded.code, 0, `npm run boundaries in the copy:\n${bounded.output}`)
      assert.equal(pagesTyped.code, 0, `npm run typecheck:dashboard in the copy:\n${pagesTyped.output}`)

      // The tests no module is listed in: the unit suite (events in docs/webhooks.md, migration
      // names, boundaries, the dashboard's page folders), the permission matrix (the module's
      // expected_callers.ts), the settings (its settings_defaults.ts), the Activity vocabulary
      // (its activity.ts) and its own. Each run has its own data folder and port.
      const [unit, functional] = await Promise.all([
        run(copy, process.execPath, ['ace.js', 'test', 'unit'], testEnv),
        run(
          copy,
          process.execPath,
          ['ace.js', 'test', 'functional', ...[
            'tests/functional/price_lists/price_lists.spec.ts',
            'tests/functional/auth/permission_matrix.spec.ts',
            'tests/functional/platform/settings.spec.ts',
            'tests/functional/platform/activity_vocabulary.spec.ts',
          ].flatMap((file) => ['--files', file])],
          testEnv
        ),
      ])
      assert.equal(unit.code, 0, `node ace test unit in the copy:\n${unit.output}`)
      assert.equal(functional.code, 0, `node ace test functional in the copy:\n${functional.output}`)
      assert.include(functional.output, 'price_lists.spec.ts')
      assert.include(functional.output, 'permission_matrix.spec.ts')
      assert.include(functional.output, 'activity_vocabulary.spec.ts')

      const status = (await run(copy, 'git', ['status', '--porcelain', '--untracked-files=all'])).output
      const changed = status.split('\n').filter(Boolean).map((line) => line.slice(3))
      assert.isTrue(changed.some((path) => path.startsWith('app/modules/price_lists/migrations/')), status)
      assert.includeMembers(changed, [
        'tests/functional/price_lists/price_lists.spec.ts',
        'tests/functional/price_lists/expected_callers.ts',
        'tests/functional/price_lists/settings_defaults.ts',
        'dashboard/src/pages/price-lists/pages.ts',
        'dashboard/src/pages/price-lists/PriceListsPage.vue',
        'dashboard/src/pages/price-lists/use_price_lists.ts',
        'adonisrc.ts',
      ])
      const outside = changed.filter(
        (path) => !path.startsWith('app/modules/price_lists/') && !path.startsWith('dashboard/src/pages/price-lists/') && !path.startsWith('tests/functional/price_lists/')
      )
      assert.isAtMost(outside.length, 2, `changed outside the module: ${outside.join(', ')}`)
      assert.sameMembers(outside, ['adonisrc.ts', 'docs/webhooks.md'])
    } finally {
      if (child && child.exitCode === null) await stop(child, 'SIGTERM')
      rmSync(scratch, { recursive: true, force: true })
    }
  }).timeout(360_000)
})
