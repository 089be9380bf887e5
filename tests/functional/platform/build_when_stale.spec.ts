import { test } from '@japa/runner'
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import app from '@adonisjs/core/services/app'
import { build, buildState, sourceFiles, STAMP, withoutDeployInstructions } from '../../../bin/build_when_stale.js'
import { freePort } from '#tests/helpers/gateway_process'

const repository = app.appRoot.pathname

/** A folder laid out as the gateway's, with a few real sources and no build yet. */
function scratchInstallation(): string {
  const root = mkdtempSync(join(tmpdir(), 'gateway-build-'))
  const files: Record<string, string> = {
    'app/core/thing.ts': 'export const thing = 1\n',
    'config/app.ts': 'export default {}\n',
    'bin/server.ts': 'import "../app/core/thing.js"\n',
    'adonisrc.ts': 'export default {}\n',
    'tests/unit/thing.spec.ts': 'export {}\n',
    'dashboard/index.html': '<div id="app"></div>\n',
    'dashboard/vite.config.ts': 'export default {}\n',
    'dashboard/src/main.ts': 'console.log(1)\n',
    'dashboard/src/App.vue': '<template><p/></template>\n',
    'package.json': '{"name":"scratch"}\n',
    'package-lock.json': '{}\n',
    'tsconfig.json': '{}\n',
    'node_modules/.package-lock.json': '{"packages":{}}\n',
    'node_modules/some-package/index.ts': 'export {}\n',
    'bench/http.ts': 'export {}\n',
    'docs/operations.md': '# Operations\n',
    'data/gateway.db': 'not a source',
    'README.md': '# Gateway\n',
  }
  for (const [path, text] of Object.entries(files)) write(root, path, text)
  return root
}

function write(root: string, path: string, text: string) {
  mkdirSync(dirname(join(root, path)), { recursive: true })
  writeFileSync(join(root, path), text)
}

/** A build step standing in for Vite and `node ace build`: it writes the two entry points. */
const makesOutputs: Array<[string, string[]]> = [
  [
    process.execPath,
    ['-e', "const fs=require('fs');fs.mkdirSync('build/bin',{recursive:true});fs.mkdirSync('build/public',{recursive:true});fs.writeFileSync('build/bin/server.js','');fs.writeFileSync('build/public/index.html','')"],
  ],
]

/** Runs `build` with its output silenced (the steps inherit stdio). */
function quietBuild(root: string, steps: Array<[string, string[]]>): boolean {
  const error = console.error
  console.error = () => {}
  try {
    return build(root, steps)
  } finally {
    console.error = error
  }
}

test.group('npm start builds only a stale build', (group) => {
  let root: string
  group.each.setup(() => {
    root = scratchInstallation()
    return () => rmSync(root, { recursive: true, force: true })
  })

  test('no build is stale; a build stamps it fresh', ({ assert }) => {
    assert.isFalse(buildState(root).fresh)
    assert.isTrue(quietBuild(root, makesOutputs))
    assert.isTrue(existsSync(join(root, STAMP)))
    assert.deepEqual(buildState(root), { fresh: true, reason: 'the build is up to date' })
  })

  test('any change of a source makes it stale, whatever the file times say', ({ assert }) => {
    quietBuild(root, makesOutputs)
    const old = new Date('2020-01-01T00:00:00Z')
    for (const path of ['app/core/thing.ts', 'bin/server.ts', 'tests/unit/thing.spec.ts', 'dashboard/src/App.vue', 'dashboard/index.html', 'package-lock.json', 'node_modules/.package-lock.json', 'tsconfig.json']) {
      const before = readFileSync(join(root, path))
      // Older content with an older time, as `git checkout` of an old commit or `cp -p` leave it.
      write(root, path, `${before}// changed\n`)
      utimesSync(join(root, path), old, old)
      assert.isFalse(buildState(root).fresh, path)
      // The same content again: fresh again, though the time changed.
      writeFileSync(join(root, path), before)
      assert.isTrue(buildState(root).fresh, path)
    }
  })

  test('a source added or removed makes it stale', ({ assert }) => {
    quietBuild(root, makesOutputs)
    write(root, 'start/routes.ts', 'export {}\n')
    assert.isFalse(buildState(root).fresh)
    unlinkSync(join(root, 'start/routes.ts'))
    assert.isTrue(buildState(root).fresh)
    unlinkSync(join(root, 'config/app.ts'))
    assert.isFalse(buildState(root).fresh)
  })

  test('what the build does not read leaves it fresh: data, docs, benchmarks, a backup archive, the generated API types', ({ assert }) => {
    quietBuild(root, makesOutputs)
    write(root, 'data/gateway.db', 'changed')
    write(root, 'data/backups/x.ts', 'export {}')
    write(root, 'docs/operations.md', '# Changed\n')
    write(root, 'bench/http.ts', 'export const changed = 1\n')
    write(root, 'README.md', 'changed')
    write(root, 'gateway-backup-20250101-000000.tar.gz', 'archive')
    write(root, 'tmp/previous-build/bin/server.ts', 'export {}')
    write(root, 'node_modules/some-package/index.ts', 'export const changed = 1\n')
    write(root, 'dashboard/src/api/schema.d.ts', 'export {}\n')
    write(root, 'dashboard/src/api/operations.ts', 'export {}\n')
    assert.isTrue(buildState(root).fresh)
  })

  test('a missing entry point makes it stale though the stamp is there', ({ assert }) => {
    quietBuild(root, makesOutputs)
    unlinkSync(join(root, 'build/public/index.html'))
    assert.isFalse(buildState(root).fresh)
  })

  test('a failed build leaves no stamp: the next start builds again', ({ assert }) => {
    assert.isTrue(quietBuild(root, makesOutputs))
    write(root, 'app/core/thing.ts', 'export const thing = 2\n')
    // The first step succeeds (outputs stay from before), the second fails.
    assert.isFalse(quietBuild(root, [...makesOutputs, [process.execPath, ['-e', 'process.exit(3)']]]))
    assert.isFalse(existsSync(join(root, STAMP)))
    assert.isFalse(buildState(root).fresh)
    // Even when the sources go back to what the previous build was made from.
    write(root, 'app/core/thing.ts', 'export const thing = 1\n')
    assert.isFalse(buildState(root).fresh)
  })

  test('a source changed while the build runs leaves the build stale', ({ assert }) => {
    const editsDuringBuild: Array<[string, string[]]> = [[process.execPath, ['-e', "require('fs').writeFileSync('app/core/thing.ts','export const thing = 3\\n')"]], ...makesOutputs]
    assert.isTrue(quietBuild(root, editsDuringBuild))
    assert.isFalse(buildState(root).fresh)
  })

  test("the sources cover every file the TypeScript compiler takes in this repository", ({ assert }) => {
    const compiled = execFileSync(process.execPath, [join(repository, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json', '--listFilesOnly'], {
      cwd: repository,
      encoding: 'utf8',
    })
      .split('\n')
      .filter((path) => path && !path.includes('/node_modules/'))
      .map((path) => path.slice(repository.length))
    const sources = new Set(sourceFiles(repository))
    assert.isAbove(compiled.length, 100)
    assert.deepEqual(compiled.filter((path) => !sources.has(path)), [])
    for (const path of ['package.json', 'package-lock.json', 'tsconfig.json', 'adonisrc.ts', 'dashboard/index.html', 'dashboard/vite.config.ts', 'dashboard/scripts/generate_api.mjs']) {
      assert.isTrue(sources.has(path), path)
    }
  }).timeout(60_000)
})

/** A copy of this working tree (tracked and new files), node_modules linked, for a real `npm start`. */
function copyOfRepository(): string {
  const root = mkdtempSync(join(tmpdir(), 'gateway-start-'))
  const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: repository, encoding: 'utf8' })
  for (const path of listed.split('\0')) {
    if (!path || !existsSync(join(repository, path))) continue
    mkdirSync(dirname(join(root, path)), { recursive: true })
    copyFileSync(join(repository, path), join(root, path))
  }
  symlinkSync(join(repository, 'node_modules'), join(root, 'node_modules'))
  return root
}

async function npmStart(root: string, dataDir: string): Promise<{ output: string; seconds: number }> {
  const port = await freePort()
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), HOST: '127.0.0.1', GATEWAY_DATA_DIR: dataDir, LOG_LEVEL: 'warn' }
  delete env.NODE_ENV
  delete env.APP_KEY
  const started = Date.now()
  // Its own process group: npm, its shell and the gateway are stopped together.
  const child: ChildProcess = spawn('npm', ['start'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
  let output = ''
  child.stdout!.on('data', (chunk) => (output += chunk))
  child.stderr!.on('data', (chunk) => (output += chunk))
  const exited = new Promise((resolve) => child.once('exit', resolve))
  try {
    const deadline = Date.now() + 240_000
    for (;;) {
      if (child.exitCode !== null) throw new Error(`npm start exited early:\n${output}`)
      if (Date.now() > deadline) throw new Error(`npm start did not answer /health:\n${output}`)
      try {
        if ((await fetch(`http://127.0.0.1:${port}/health`)).status === 200) break
      } catch {}
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    return { output, seconds: (Date.now() - started) / 1000 }
  } finally {
    if (child.exitCode === null) process.kill(-child.pid!, 'SIGTERM')
    await exited
  }
}

test.group("npm start leaves out the framework's deploy instructions", () => {
  test('the box is cut, coloured or not, and what comes before and after it stays', ({ assert }) => {
    const box = [
      '\x1b[31m╭──────────╮\x1b[39m',
      '\x1b[31m│\x1b[39m    Run the following commands to start the server in production    \x1b[31m│\x1b[39m',
      '\x1b[31m│\x1b[39m    ❯ cd build    \x1b[31m│\x1b[39m',
      '\x1b[31m│\x1b[39m    ❯ node bin/server.js    \x1b[31m│\x1b[39m',
      '\x1b[31m╰──────────╯\x1b[39m',
    ]
    const output = ['[ success ] build completed', '', ...box, 'after', ''].join('\n')
    assert.equal(withoutDeployInstructions(output), ['[ success ] build completed', '', 'after', ''].join('\n'))
    const plain = box.map((line) => line.replace(/\x1b\[[0-9;]*m/g, ''))
    assert.equal(withoutDeployInstructions(['before', ...plain].join('\n')), 'before')
    assert.equal(withoutDeployInstructions('[ success ] build completed\n'), '[ success ] build completed\n')
  })
})

test.group('npm start, for real', () => {
  test('the first npm start builds, the second starts the same build without building', async ({ assert }) => {
    const root = copyOfRepository()
    try {
      const first = await npmStart(root, join(root, 'data'))
      assert.include(first.output, 'building')
      // The framework's own deploy steps (cd build, npm ci, node bin/server.js) are not shown.
      assert.include(first.output, 'build completed')
      assert.notInclude(first.output, 'to start the server in production')
      assert.isTrue(existsSync(join(root, STAMP)))
      const second = await npmStart(root, join(root, 'data'))
      assert.include(second.output, 'the build is up to date, not rebuilt')
      assert.notInclude(second.output, 'building')
      assert.isBelow(second.seconds, first.seconds)
    } finally {
      rmSync(root, { recursive: true, force: true })
    }
  }).timeout(600_000)
})
