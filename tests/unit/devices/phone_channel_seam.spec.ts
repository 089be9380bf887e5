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
 * (docs/phone-channels.md): one kind of phone's code is reached from its own folder and from the
 * provider that registers it, nowhere else. `routes.ts` names the agent's socket address in the
 * API's description.
 */
test.group('The phone channel seam', () => {
  const mayNameAChannel = (file: string) => file.startsWith('channels/agent_socket/') || file === 'devices_provider.ts'

  test('no file outside a channel folder and the provider imports the agent socket channel', ({ assert }) => {
    const files = moduleFiles()
    assert.include(files, 'services/phone_fleet.ts')
    const crossing = files
      .filter((file) => !mayNameAChannel(file))
      .flatMap((file) =>
        importsOf(file)
          .filter((path) => /agent_socket\/(?!agent_protocol$)|device_hub|^ws$/.test(path) || (file !== 'routes.ts' && path.includes('agent_socket')))
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
})
