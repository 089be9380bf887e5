import { test } from '@japa/runner'
import { readdir, readFile } from 'node:fs/promises'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('../../../', import.meta.url))
const modules = join(root, 'app/modules')

/**
 * The contact imports module's tables (docs/modules.md, The modules and their tables); which
 * contacts an import wrote (`contact_import_contacts`) is the contacts module's.
 */
const IMPORT_TABLES = ['contact_imports', 'contact_import_errors']
/** SQL naming a table (FROM, JOIN, INTO, UPDATE) or a query builder's from('…') / inTable('…'). */
const NAMES_AN_IMPORT_TABLE = new RegExp(`(\\b(FROM|JOIN|INTO|UPDATE)\\s+|\\b(from|inTable|table)\\(\\s*['"])(${IMPORT_TABLES.join('|')})\\b`, 'i')

async function sources(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { recursive: true })
  return entries.filter((entry) => entry.endsWith('.ts')).map((entry) => join(folder, entry))
}

test.group('Contact imports own their tables', () => {
  test('no other module names a contact imports table in SQL', async ({ assert }) => {
    const crossings: string[] = []
    for (const file of await sources(modules)) {
      const path = relative(root, file)
      if (path.startsWith('app/modules/contact_imports/')) continue
      const lines = (await readFile(file, 'utf8')).split('\n')
      lines.forEach((line, index) => {
        if (NAMES_AN_IMPORT_TABLE.test(line)) crossings.push(`${path}:${index + 1}: ${line.trim()}`)
      })
    }
    assert.deepEqual(crossings, [])
  })

  test('the contacts module imports nothing from the contact imports module (imports build on contacts, never the reverse)', async ({ assert }) => {
    const importing: string[] = []
    for (const file of await sources(join(modules, 'contacts'))) {
      if (/#modules\/contact_imports\//.test(await readFile(file, 'utf8'))) importing.push(relative(root, file))
    }
    assert.deepEqual(importing, [])
  })
})
