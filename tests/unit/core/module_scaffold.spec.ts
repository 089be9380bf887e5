import { test } from '@japa/runner'
import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import app from '@adonisjs/core/services/app'
import { moduleFiles, moduleNames, nextMigrationNumber, withEventRow, withProvider } from '#core/scaffold/module_scaffold'
import { documentedEvents } from '#tests/unit/core/webhooks_doc'
import { sqlOutsideStores } from '#tests/unit/core/data_access_rule'

test.group('make:module scaffold', () => {
  test('names follow the module: plural folder and table, singular item, dashed path', ({ assert }) => {
    assert.deepEqual(moduleNames('notes'), { module: 'notes', path: 'notes', Module: 'Notes', moduleCamel: 'notes', item: 'note', Item: 'Note', MODULE: 'NOTES', words: 'notes' })
    assert.deepInclude(moduleNames('price_lists'), { path: 'price-lists', Module: 'PriceLists', moduleCamel: 'priceLists', item: 'price_list', Item: 'PriceList', MODULE: 'PRICE_LISTS' })
    assert.deepInclude(moduleNames('inventory'), { item: 'inventory_item', Item: 'InventoryItem' })
    for (const bad of ['Notes', 'notes-x', '1notes', 'notes_', '', '../x']) assert.throws(() => moduleNames(bad), /snake_case/)
  })

  test('the migration is numbered after the highest number of every folder', async ({ assert }) => {
    const root = await mkdtemp(join(tmpdir(), 'scaffold-'))
    try {
      await mkdir(join(root, 'database/migrations'), { recursive: true })
      await mkdir(join(root, 'app/modules/zebras/migrations'), { recursive: true })
      await writeFile(join(root, 'database/migrations/0023_core_x.ts'), '')
      await writeFile(join(root, 'app/modules/zebras/migrations/0030_zebras_y.ts'), '')
      assert.equal(nextMigrationNumber(root), '0031')
      const files = Object.keys(moduleFiles(moduleNames('notes'), nextMigrationNumber(root)))
      assert.include(files, 'app/modules/notes/migrations/0031_notes_create_notes.ts')
      assert.include(files, 'tests/functional/notes/notes.spec.ts')
      assert.includeMembers(files, ['dashboard/src/pages/notes/pages.ts', 'dashboard/src/pages/notes/NotesPage.vue', 'dashboard/src/pages/notes/use_notes.ts'])
      assert.isTrue(files.every((file) => file.startsWith('app/modules/notes/') || file.startsWith('tests/functional/notes/') || file.startsWith('dashboard/src/pages/notes/')))
    } finally {
      await rm(root, { recursive: true, force: true })
    }
  })

  test('the module keeps its SQL in its store: no other file reaches the database (docs/modules.md, Data access)', async ({ assert }) => {
    const root = await mkdtemp(join(tmpdir(), 'scaffold-'))
    try {
      const files = Object.entries(moduleFiles(moduleNames('price_lists'), '0099')).filter(([path]) => path.startsWith('app/modules/'))
      for (const [path, text] of files) {
        await mkdir(dirname(join(root, path)), { recursive: true })
        await writeFile(join(root, path), text)
      }
      assert.include(files.map(([path]) => path), 'app/modules/price_lists/stores/price_list_store.ts')
      assert.deepEqual(await sqlOutsideStores(root, 'price_lists'), [])
      // The check would see a query written in the service.
      const service = join(root, 'app/modules/price_lists/services/price_lists_service.ts')
      await writeFile(service, `import PriceList from '#modules/price_lists/models/price_list'\nawait PriceList.query().count('* as total')\n`)
      assert.lengthOf(await sqlOutsideStores(root, 'price_lists'), 2)
    } finally {
      await rm(root, { recursive: true, force: true })
    }
  })

  test('adonisrc.ts gains the provider after the last module, once', async ({ assert }) => {
    const rcFile = await readFile(app.makePath('adonisrc.ts'), 'utf8')
    const changed = withProvider(rcFile, 'notes')
    const added = changed.split('\n').filter((line) => !rcFile.split('\n').includes(line))
    assert.deepEqual(added.map((line) => line.trim()), ["() => import('#modules/notes/notes_provider'),"])
    assert.equal(withProvider(changed, 'notes'), changed)
    assert.throws(() => withProvider('export default {}', 'notes'), /no module provider line/)
  })

  test('docs/webhooks.md gains the event as the last row of the Events table, once', async ({ assert }) => {
    const doc = await readFile(app.makePath('docs/webhooks.md'), 'utf8')
    const changed = withEventRow(doc, moduleNames('notes'))
    assert.deepEqual(documentedEvents(changed), [...documentedEvents(doc), 'note.created'])
    assert.equal(withEventRow(changed, moduleNames('notes')), changed)
  })
})
