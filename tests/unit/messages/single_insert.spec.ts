import { test } from '@japa/runner'
import { readFileSync, readdirSync } from 'node:fs'
import { join, relative } from 'node:path'

const APP = join(import.meta.dirname, '../../../app')

function typescriptFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name)
    if (entry.isDirectory()) return typescriptFiles(path)
    return entry.name.endsWith('.ts') ? [path] : []
  })
}

/**
 * One file inserts messages (docs/modules.md, the send walk): a new way into the table cannot
 * skip what every insert must do (the forced phone read one way, the shared columns bound once).
 */
test.group('Messages are inserted in one file', () => {
  test('only stores/message_inserts.ts writes INSERT INTO messages', ({ assert }) => {
    const inserting = typescriptFiles(APP)
      .filter((file) => /INSERT\s+INTO\s+messages\b/i.test(readFileSync(file, 'utf8')))
      .map((file) => relative(APP, file))
    assert.deepEqual(inserting, ['modules/messages/stores/message_inserts.ts'])
  })

})
