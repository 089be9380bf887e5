import { test } from '@japa/runner'
import { readFileSync, readdirSync } from 'node:fs'
import { join, relative } from 'node:path'

const MODULE = join(import.meta.dirname, '../../../app/modules/devices')

/** Every TypeScript file of the devices module, by its path inside the module. */
function moduleFiles(folder = MODULE): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name)
    if (entry.isDirectory()) return moduleFiles(path)
    return entry.name.endsWith('.ts') ? [relative(MODULE, path)] : []
  })
}

function importsOf(file: string): string[] {
  const source = readFileSync(join(MODULE, file), 'utf8')
  return [...source.matchAll(/(?:import|export)[^'"]*?from\s+['"]([^'"]+)['"]/g)].map((match) => match[1])
}

/**
 * The dispatcher talks to "a phone" only through the devices module's fleet and order book, and
 * the devices module to a kind of phone only through the channel contract
 * (docs/phone-channels.md): each kind of phone is a module of its own (agent, smsgate) that
 * registers its channel; the devices module imports none of them, nor a socket library.
 */
test.group('The phone channel seam', () => {
  test('no file of the devices module imports a kind of phone, or a socket library', ({ assert }) => {
    const files = moduleFiles()
    assert.include(files, 'services/phone_fleet.ts')
    const crossing = files.flatMap((file) =>
      importsOf(file)
        .filter((path) => /^#modules\/(agent|smsgate)\/|^ws$/.test(path))
        .map((path) => `${file} imports ${path}`)
    )
    assert.deepEqual(crossing, [])
  })

  test('the fleet and the liveness job reach phones through PhoneChannels only', ({ assert }) => {
    for (const file of ['services/phone_fleet.ts', 'jobs/liveness_job.ts']) {
      const channelImports = importsOf(file).filter((path) => path.includes('/channels/'))
      assert.deepEqual(
        channelImports.filter((path) => !/channels\/phone_channels?$/.test(path)),
        [],
        `${file} imports a channel's own code`
      )
    }
  })

  test('the devices module never names a message: it imports nothing of the messages module', ({ assert }) => {
    const crossing = moduleFiles().flatMap((file) => importsOf(file).filter((path) => path.startsWith('#modules/messages/')).map((path) => `${file} imports ${path}`))
    assert.deepEqual(crossing, [])
  })

  test('the messages module asks what a channel can do, never which kind it is: no file of it names a kind of phone', ({ assert }) => {
    const files = moduleFiles(join(MODULE, '../messages'))
    assert.include(files, '../messages/services/message_ledger.ts')
    const naming = files.filter((file) => /smsgate|#modules\/agent\//i.test(readFileSync(join(MODULE, file), 'utf8')))
    assert.deepEqual(naming, [])
  })
})
