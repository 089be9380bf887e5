import { test } from '@japa/runner'
import { spawnSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import app from '@adonisjs/core/services/app'
import { Agent } from 'undici'
import { DataFolder } from '#core/data_folder/data_folder'
import { GatewayProcess } from '#core/service/gateway_process'
import { InstallationUpdate, UpdateFailed, UpdateRefused } from '#core/service/installation_update'
import { freePort } from '#tests/helpers/gateway_process'

/**
 * `gateway update` on a real installation that is a git checkout: a bare repository on disk is
 * its upstream, a clone of it the installation. Nothing of git, npm or the service is stubbed:
 * the installation is a small gateway stand-in (its package has no dependencies, so the real
 * `npm install` takes a second, and its `npm run build` copies server.js to build/bin/server.js,
 * where the real service start looks), started, health-checked and stopped as the real one.
 */

const gitEnv: NodeJS.ProcessEnv = { ...process.env, GIT_AUTHOR_NAME: 'Test', GIT_AUTHOR_EMAIL: 'test@example.com', GIT_COMMITTER_NAME: 'Test', GIT_COMMITTER_EMAIL: 'test@example.com' }
for (const name of ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE']) delete gitEnv[name]

function git(cwd: string, ...args: string[]): string {
  const result = spawnSync('git', args, { cwd, env: gitEnv, encoding: 'utf8' })
  if (result.status !== 0) throw new Error(`git ${args.join(' ')}: ${result.stderr}`)
  return result.stdout.trim()
}

type Behaviour = 'answers' | 'exits at start' | 'answers /health with 503'

/** The stand-in's server: answers /health with its version, stops on SIGTERM. */
function serverSource(version: string, behaviour: Behaviour = 'answers') {
  return `import http from 'node:http'
${behaviour === 'exits at start' ? "console.error('cannot start'); process.exit(1)" : ''}
const server = http.createServer((request, response) => {
  response.statusCode = ${behaviour === 'answers /health with 503' ? 503 : 200}
  response.end(JSON.stringify({ version: '${version}' }))
})
server.listen(Number(process.env.PORT), '127.0.0.1')
process.on('SIGTERM', () => server.close(() => process.exit(0)))
`
}

const files = {
  'package.json': JSON.stringify({ name: 'gateway-stand-in', version: '1.0.0', private: true, type: 'module', scripts: { build: 'node build.js' } }, null, 2),
  'build.js': `import { cpSync, mkdirSync } from 'node:fs'
mkdirSync('build/bin', { recursive: true })
cpSync('server.js', 'build/bin/server.js')
`,
  '.gitignore': 'node_modules/\nbuild/\ndata/\ntmp/\n',
}

test.group('gateway update from a git checkout', (group) => {
  let root: string
  let author: string
  let installation: string
  let service: GatewayProcess
  let port: number
  let lines: string[]

  group.each.setup(async () => {
    root = mkdtempSync(join(tmpdir(), 'gateway-update-'))
    const upstream = join(root, 'upstream.git')
    author = join(root, 'author')
    installation = join(root, 'installation')
    git(root, 'init', '--quiet', '--bare', '--initial-branch=main', upstream)
    git(root, 'init', '--quiet', '--initial-branch=main', author)
    for (const [name, text] of Object.entries(files)) writeFileSync(join(author, name), text)
    writeFileSync(join(author, 'server.js'), serverSource('v1'))
    git(author, 'add', '.')
    git(author, 'commit', '--quiet', '-m', 'v1')
    git(author, 'remote', 'add', 'origin', upstream)
    git(author, 'push', '--quiet', '-u', 'origin', 'main')
    git(root, 'clone', '--quiet', upstream, installation)
    check(spawnSync(process.execPath, ['build.js'], { cwd: installation }).status === 0, 'first build')

    port = await freePort()
    service = new GatewayProcess({ appRoot: installation, folder: new DataFolder(join(root, 'data')), port, env: { PORT: String(port) }, startTimeoutMs: 3000 })
    lines = []
    return async () => {
      await service.stop()
      rmSync(root, { recursive: true, force: true })
    }
  })

  const update = (at = installation) => new InstallationUpdate({ root: at, service, log: (line) => lines.push(line) }).run()
  /** A fresh connection each time: a kept-alive one may still point at the process just stopped. */
  const running = async () => {
    const response = await fetch(`http://127.0.0.1:${port}/health`, { dispatcher: new Agent() } as RequestInit)
    return { status: response.status, ...((await response.json()) as { version: string }) }
  }
  function publish(version: string, behaviour?: Behaviour): string {
    writeFileSync(join(author, 'server.js'), serverSource(version, behaviour))
    git(author, 'commit', '--quiet', '-am', version)
    git(author, 'push', '--quiet')
    return git(author, 'rev-parse', 'HEAD')
  }
  const head = () => git(installation, 'rev-parse', 'HEAD')
  const pidFile = () => readFileSync(service.pidFile, 'utf8').trim()

  test('fast-forwards the branch, installs, builds, restarts on the new version; then is up to date', async ({ assert }) => {
    await service.start()
    const before = pidFile()
    const previous = head()
    const released = publish('v2')

    const outcome = await update()
    assert.deepInclude(outcome, { updated: true, from: previous, to: released })
    assert.equal(head(), released)
    assert.deepEqual(await running(), { status: 200, version: 'v2' })
    assert.notEqual(pidFile(), before)
    assert.include(readFileSync(join(installation, 'build', 'bin', 'server.js'), 'utf8'), "'v2'")
    assert.isFalse(existsSync(join(installation, 'tmp', 'previous-build')), 'the previous build is dropped once /health answered')
    assert.equal(git(installation, 'status', '--porcelain', '--untracked-files=no'), '', 'npm left the checkout clean')
    assert.isTrue(lines.some((line) => line.startsWith(`updating main from ${previous.slice(0, 12)} to ${released.slice(0, 12)}`)), lines.join('\n'))

    const again = await update()
    assert.deepEqual(again, { updated: false, commit: released })
    assert.equal((await running()).version, 'v2')
  }).timeout(60_000)

  test('a new version that {$self} is undone: previous commit, its build, started again')
    .with(['exits at start', 'answers /health with 503'] as Behaviour[])
    .run(async ({ assert }, behaviour) => {
      await service.start()
      const previous = head()
      const previousBuild = readFileSync(join(installation, 'build', 'bin', 'server.js'), 'utf8')
      publish('v2', behaviour)

      const failure = await update().then(
        () => null,
        (error) => error
      )
      assert.instanceOf(failure, UpdateFailed)
      assert.match(failure.message, new RegExp(`the update to [0-9a-f]{12} failed .*; back on ${previous.slice(0, 12)}, gateway started`))
      assert.equal(head(), previous)
      assert.equal(readFileSync(join(installation, 'build', 'bin', 'server.js'), 'utf8'), previousBuild)
      assert.deepEqual(await running(), { status: 200, version: 'v1' })
      assert.isFalse(existsSync(join(installation, 'tmp', 'previous-build')))
      assert.equal(git(installation, 'status', '--porcelain', '--untracked-files=no'), '')
    })
    .timeout(60_000)

  test('a new version whose build fails is undone before it is started: the previous build is put back', async ({ assert }) => {
    await service.start()
    const before = pidFile()
    const previous = head()
    writeFileSync(join(author, 'build.js'), "throw new Error('the build breaks')\n")
    publish('v2')

    const failure = await update().catch((error) => error)
    assert.instanceOf(failure, UpdateFailed)
    assert.include(failure.message, '(the build failed)')
    assert.isTrue(lines.some((line) => line.includes('the build breaks')), 'the end of the build output is shown')
    assert.equal(head(), previous)
    assert.notEqual(pidFile(), before, 'stopped for the update, started again')
    assert.deepEqual(await running(), { status: 200, version: 'v1' })
    assert.isFalse(existsSync(join(installation, 'tmp', 'previous-build')))
  }).timeout(60_000)

  test('local changes to tracked files are refused before anything is touched', async ({ assert }) => {
    await service.start()
    const before = pidFile()
    const previous = head()
    writeFileSync(join(installation, 'build.js'), `${files['build.js']}// an operator's edit\n`)
    publish('v2')

    const refusal = await update().catch((error) => error)
    assert.instanceOf(refusal, UpdateRefused)
    assert.match(refusal.message, /^1 tracked file\(s\) have local changes: commit or stash them/)
    assert.equal(head(), previous)
    assert.equal(pidFile(), before, 'the gateway kept running')
    assert.equal((await running()).version, 'v1')
    assert.include(readFileSync(join(installation, 'build.js'), 'utf8'), "an operator's edit")
  }).timeout(60_000)

  test('a branch that has diverged from its upstream is refused: no fast-forward, nothing touched', async ({ assert }) => {
    await service.start()
    const before = pidFile()
    writeFileSync(join(installation, 'notes.txt'), 'local\n')
    git(installation, 'add', 'notes.txt')
    git(installation, 'commit', '--quiet', '-m', 'a local commit')
    const local = head()
    publish('v2')

    const refusal = await update().catch((error) => error)
    assert.instanceOf(refusal, UpdateRefused)
    assert.match(refusal.message, /^main and origin\/main have diverged: a fast-forward is impossible/)
    assert.equal(head(), local)
    assert.equal(pidFile(), before)
    assert.equal((await running()).version, 'v1')
  }).timeout(60_000)

  test('an installation that is not a git checkout (a copied folder, or one inside another repository) is refused with the way to update it', async ({
    assert,
  }) => {
    const copied = join(root, 'copied')
    mkdirSync(copied)
    for (const name of ['package.json', 'build.js', 'server.js', 'build']) cpSync(join(installation, name), join(copied, name), { recursive: true })
    const nested = join(author, 'vendor', 'gateway')
    mkdirSync(nested, { recursive: true })
    cpSync(copied, nested, { recursive: true })

    for (const folder of [copied, nested]) {
      const refusal = await update(folder).catch((error) => error)
      assert.instanceOf(refusal, UpdateRefused)
      assert.equal(refusal.message, 'this installation is not a git checkout, so gateway update cannot update it: see docs/operations.md, "Updating"')
    }
    assert.isFalse(existsSync(join(copied, 'node_modules')), 'npm never ran')
  }).timeout(60_000)
})

test.group('gateway update on an installation that is a copied folder', () => {
  test('the gateway command refuses with one line pointing at docs/operations.md, and exit code 1', async ({ assert }) => {
    // This gateway's own files, copied as a tarball installation would be (no .git), with its
    // dependencies linked in: the real bin and Ace command, on a folder git knows nothing of.
    const root = mkdtempSync(join(tmpdir(), 'gateway-update-copy-'))
    try {
      const source = app.appRoot.pathname
      const copy = join(root, 'gateway')
      const tracked = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: source, env: gitEnv, encoding: 'utf8' }).stdout.split('\0').filter(Boolean)
      for (const file of tracked) {
        if (!existsSync(join(source, file))) continue
        mkdirSync(dirname(join(copy, file)), { recursive: true })
        cpSync(join(source, file), join(copy, file))
      }
      symlinkSync(join(source, 'node_modules'), join(copy, 'node_modules'))
      const env: NodeJS.ProcessEnv = { ...process.env, GATEWAY_DATA_DIR: join(root, 'data'), PORT: String(await freePort()) }
      delete env.NODE_ENV
      const result = spawnSync(process.execPath, [join(copy, 'bin', 'gateway.js'), 'update'], { cwd: root, env, encoding: 'utf8', timeout: 120_000 })
      const output = `${result.stdout}${result.stderr}`
      assert.equal(result.status, 1, output)
      assert.include(output, 'this installation is not a git checkout, so gateway update cannot update it: see docs/operations.md, "Updating"')
      assert.notInclude(output, 'npm', 'nothing was installed')
      assert.lengthOf(output.trim().split('\n'), 1, output)
    } finally {
      // Should a regression start a gateway from the copy, it does not outlive the test.
      const pidFile = join(root, 'data', 'gateway.pid')
      if (existsSync(pidFile)) process.kill(Number(readFileSync(pidFile, 'utf8')), 'SIGTERM')
      rmSync(root, { recursive: true, force: true })
    }
  }).timeout(120_000)
})

function check(condition: boolean, what: string): asserts condition {
  if (!condition) throw new Error(`setup failed: ${what}`)
}
