import { test } from '@japa/runner'
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import app from '@adonisjs/core/services/app'

/** Runs `node ace ...` as a developer does, on a data folder of its own. */
function ace(args: string[], dataDir: string) {
  const env: NodeJS.ProcessEnv = { ...process.env, GATEWAY_DATA_DIR: dataDir }
  delete env.APP_KEY
  return spawnSync(process.execPath, ['ace', ...args], { cwd: app.makePath(), env, encoding: 'utf8', timeout: 60_000 })
}

/**
 * Ace commands that never read the gateway's data (listing, scaffolding, building, the test
 * and dev-server entry points) leave no data folder and no master key where they run; the
 * ones that work on the data prepare it as the server does.
 */
test.group('node ace and the data folder', (group) => {
  let root: string
  group.each.setup(() => {
    root = mkdtempSync(join(tmpdir(), 'ace-data-'))
    return () => rmSync(root, { recursive: true, force: true })
  })

  test('listing commands or asking for one\'s help creates no data folder', ({ assert }) => {
    const dataDir = join(root, 'data')
    for (const args of [['list'], [], ['make:controller', '--help']]) {
      const run = ace(args, dataDir)
      assert.equal(run.status, 0, `node ace ${args.join(' ')}: ${run.stderr}`)
      assert.isFalse(existsSync(dataDir), `node ace ${args.join(' ')} made ${dataDir}`)
    }
  }).timeout(120_000)

  test('a command that works on the data prepares the folder and its master key', ({ assert }) => {
    const dataDir = join(root, 'data')
    const run = ace(['migration:status'], dataDir)
    assert.equal(run.status, 0, run.stderr)
    assert.isTrue(existsSync(join(dataDir, 'secret.key')))
  }).timeout(120_000)
})
