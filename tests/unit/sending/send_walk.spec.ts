import { test } from '@japa/runner'
import { readdir, readFile } from 'node:fs/promises'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('../../../', import.meta.url))
const modules = join(root, 'app/modules')

async function sources(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { recursive: true })
  return entries.filter((entry) => entry.endsWith('.ts')).map((entry) => join(folder, entry))
}

/** The modules a folder's files import, each with the files that do. */
async function modulesImportedBy(folder: string): Promise<Map<string, string[]>> {
  const imported = new Map<string, string[]>()
  for (const file of await sources(folder)) {
    for (const [, module] of (await readFile(file, 'utf8')).matchAll(/from '#modules\/([^/']+)\//g)) {
      imported.set(module, [...(imported.get(module) ?? []), relative(root, file)])
    }
  }
  return imported
}

/** docs/modules.md, The send walk: sending → messages → the phone, and nothing else in between. */
test.group('The send walk', () => {
  test('the sending module hands its messages to the messages module only: it names no conversation, contact or phone', async ({ assert }) => {
    const imported = await modulesImportedBy(join(modules, 'sending'))
    imported.delete('sending')
    // The shortener is a call inside the send's transaction, not a stay of the message.
    assert.sameMembers([...imported.keys()], ['messages', 'links'])
  })

  test('the messages module imports nothing from the sending module (sending builds on messages, never the reverse)', async ({ assert }) => {
    assert.deepEqual((await modulesImportedBy(join(modules, 'messages'))).get('sending') ?? [], [])
  })
})
