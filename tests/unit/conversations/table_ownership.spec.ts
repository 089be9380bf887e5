import { test } from '@japa/runner'
import { readdir, readFile } from 'node:fs/promises'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('../../../', import.meta.url))
const modules = join(root, 'app/modules')

/**
 * SQL naming the conversations table (FROM, JOIN, INTO, UPDATE), a query builder's from('…') /
 * table('…'), or a table handed to a helper that writes the SQL (`table: '…'`).
 */
const NAMES_THE_CONVERSATIONS_TABLE = /(\b(FROM|JOIN|INTO|UPDATE)\s+|\b(from|inTable|table)\(\s*['"]|\btable:\s*['"])conversations\b/i

async function sources(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { recursive: true })
  return entries.filter((entry) => entry.endsWith('.ts')).map((entry) => join(folder, entry))
}

test.group('Conversations own their table', () => {
  test('no other module names the conversations table in SQL (the messages module calls the upsert)', async ({ assert }) => {
    const crossings: string[] = []
    for (const file of await sources(modules)) {
      const path = relative(root, file)
      if (path.startsWith('app/modules/conversations/')) continue
      const lines = (await readFile(file, 'utf8')).split('\n')
      lines.forEach((line, index) => {
        if (NAMES_THE_CONVERSATIONS_TABLE.test(line)) crossings.push(`${path}:${index + 1}: ${line.trim()}`)
      })
    }
    assert.deepEqual(crossings, [])
  })

  test('the conversations module imports nothing from the messages module (messages builds on conversations, never the reverse)', async ({ assert }) => {
    const importing: string[] = []
    for (const file of await sources(join(modules, 'conversations'))) {
      if (/#modules\/messages\//.test(await readFile(file, 'utf8'))) importing.push(relative(root, file))
    }
    assert.deepEqual(importing, [])
  })
})
