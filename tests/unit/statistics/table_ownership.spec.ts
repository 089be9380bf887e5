import { test } from '@japa/runner'
import { readdir, readFile } from 'node:fs/promises'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('../../../', import.meta.url))

/** The statistics module's tables (docs/modules.md, The modules and their tables). */
const STATISTICS_TABLES = ['message_volume', 'message_failures', 'message_latency']
/**
 * SQL naming a table (FROM, JOIN, INTO, UPDATE), a query builder's from('…') / table('…'), or a
 * table handed to a helper that writes the SQL (`table: '…'`).
 */
const NAMES_A_STATISTICS_TABLE = new RegExp(
  `(\\b(FROM|JOIN|INTO|UPDATE)\\s+|\\b(from|inTable|table)\\(\\s*['"]|\\btable:\\s*['"])(${STATISTICS_TABLES.join('|')})\\b`,
  'i'
)

async function sources(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { recursive: true })
  return entries.filter((entry) => entry.endsWith('.ts')).map((entry) => join(folder, entry))
}

test.group('Statistics own the message counters', () => {
  test('nothing in app/ but the statistics module names a counter table in SQL', async ({ assert }) => {
    const crossings: string[] = []
    const owners: string[] = []
    for (const file of await sources(join(root, 'app'))) {
      const path = relative(root, file)
      const lines = (await readFile(file, 'utf8')).split('\n')
      const naming = lines.map((line, index) => [line, index] as const).filter(([line]) => NAMES_A_STATISTICS_TABLE.test(line))
      if (path.startsWith('app/modules/statistics/')) {
        if (naming.length > 0) owners.push(path)
        continue
      }
      for (const [line, index] of naming) crossings.push(`${path}:${index + 1}: ${line.trim()}`)
    }
    assert.deepEqual(crossings, [])
    // The reads and the triggers' definitions are found: the pattern does match their SQL.
    assert.includeMembers(owners, ['app/modules/statistics/stores/message_counter_store.ts', 'app/modules/statistics/migrations/0024_statistics_counter_triggers.ts'])
  })
})
