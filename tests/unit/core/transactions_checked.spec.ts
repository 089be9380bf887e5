import { test } from '@japa/runner'
import { readdir, readFile } from 'node:fs/promises'
import { join, relative } from 'node:path'

const ROOT = new URL('../../../', import.meta.url).pathname
const CHECKED = ['app', 'commands', 'providers', 'start', 'config']
const THE_ONE_WAY = 'app/core/database/transaction.ts'

async function sourceFiles(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { withFileTypes: true }).catch(() => [])
  const files = await Promise.all(
    entries.map((entry) => {
      const path = join(folder, entry.name)
      if (entry.isDirectory()) return sourceFiles(path)
      return Promise.resolve(entry.name.endsWith('.ts') ? [path] : [])
    })
  )
  return files.flat()
}

/**
 * Lucid's own `db.transaction()` resolves even when SQLite refused the COMMIT (a full disk):
 * every transaction of the gateway goes through core's `transaction()`, which throws then.
 */
test('every transaction in the code goes through core transaction(), which checks the COMMIT', async ({ assert }) => {
  const offenders: string[] = []
  for (const folder of CHECKED) {
    for (const file of await sourceFiles(join(ROOT, folder))) {
      const path = relative(ROOT, file)
      if (path === THE_ONE_WAY) continue
      const text = await readFile(file, 'utf8')
      text.split('\n').forEach((line, index) => {
        if (/\.transaction\(/.test(line)) offenders.push(`${path}:${index + 1}`)
      })
    }
  }
  assert.deepEqual(offenders, [], 'use transaction() from #core/database/transaction')
})
