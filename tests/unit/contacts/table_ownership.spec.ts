import { test } from '@japa/runner'
import { readdir, readFile } from 'node:fs/promises'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('../../../', import.meta.url))
const modules = join(root, 'app/modules')

/** The contacts module's tables (docs/modules.md, The modules and their tables). */
const CONTACT_TABLES = ['contacts', 'contact_groups', 'contact_group_members', 'contact_import_contacts', 'contact_opt_changes']
/** SQL naming a table (FROM, JOIN, INTO, UPDATE) or a query builder's from('…') / inTable('…'). */
const NAMES_A_CONTACT_TABLE = new RegExp(
  `(\\b(FROM|JOIN|INTO|UPDATE)\\s+|\\b(from|inTable|table)\\(\\s*['"])(${CONTACT_TABLES.join('|')})\\b`,
  'i'
)
/** The one read allowed outside the module, and why (docs/modules.md, The one read of another module's table). */
const ALLOWED = new Set(['app/modules/conversations/stores/conversation_store.ts'])

async function sources(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { recursive: true })
  return entries.filter((entry) => entry.endsWith('.ts')).map((entry) => join(folder, entry))
}

test.group('Contacts own their tables', () => {
  test('no other module names a contacts table in SQL, apart from the conversation upsert', async ({ assert }) => {
    const crossings: string[] = []
    for (const file of await sources(modules)) {
      const path = relative(root, file)
      if (path.startsWith('app/modules/contacts/') || ALLOWED.has(path)) continue
      const lines = (await readFile(file, 'utf8')).split('\n')
      lines.forEach((line, index) => {
        if (NAMES_A_CONTACT_TABLE.test(line)) crossings.push(`${path}:${index + 1}: ${line.trim()}`)
      })
    }
    assert.deepEqual(crossings, [])
  })

  test('the messages and conversations modules import nothing from the contacts module (contacts builds on them, never the reverse)', async ({ assert }) => {
    const importing: string[] = []
    for (const module of ['messages', 'conversations']) {
      for (const file of await sources(join(modules, module))) {
        if (/#modules\/contacts\//.test(await readFile(file, 'utf8'))) importing.push(relative(root, file))
      }
    }
    assert.deepEqual(importing, [])
  })
})
