import { test } from '@japa/runner'
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { ALLOCATOR_ENVIRONMENT, withAllocatorSettings } from '#core/service/allocator_settings'

const NAMES = Object.keys(ALLOCATOR_ENVIRONMENT)

/** What `npm start` runs after the build check: the server's command with its environment. */
function startCommand(): string {
  const script: string = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')).scripts.start
  return script.slice(script.indexOf('&&') + 2).trim()
}

/** The allocator's variables the server of `npm start` would see, given the caller's environment. */
function npmStartEnvironment(env: Record<string, string>): Record<string, string> {
  const command = startCommand().replace(/node build\/bin\/server\.js$/, `node -e 'console.log(JSON.stringify(process.env))'`)
  const seen = JSON.parse(execFileSync('sh', ['-c', command], { env: { PATH: process.env.PATH, ...env }, encoding: 'utf8' }))
  return Object.fromEntries(NAMES.map((name) => [name, seen[name]]))
}

test.group('The allocator settings the server starts with', () => {
  test('are added where the environment has none, and a value already set wins', ({ assert }) => {
    assert.deepEqual(NAMES.sort(), ['MALLOC_ARENA_MAX', 'MALLOC_MMAP_THRESHOLD_'])
    const added = withAllocatorSettings({ GATEWAY_DATA_DIR: '/data' })
    assert.include(added, { GATEWAY_DATA_DIR: '/data', ...ALLOCATOR_ENVIRONMENT })
    const kept = withAllocatorSettings({ MALLOC_ARENA_MAX: '8' })
    assert.equal(kept.MALLOC_ARENA_MAX, '8')
    assert.equal(kept.MALLOC_MMAP_THRESHOLD_, ALLOCATOR_ENVIRONMENT.MALLOC_MMAP_THRESHOLD_)
  })

  test('npm start sets the same ones, and keeps a value already set', ({ assert }) => {
    assert.match(startCommand(), /node build\/bin\/server\.js$/)
    assert.deepEqual(npmStartEnvironment({}), ALLOCATOR_ENVIRONMENT)
    assert.deepEqual(npmStartEnvironment({ MALLOC_ARENA_MAX: '8' }), { ...ALLOCATOR_ENVIRONMENT, MALLOC_ARENA_MAX: '8' })
  })
})
