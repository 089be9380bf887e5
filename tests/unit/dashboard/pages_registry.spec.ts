import { test } from '@japa/runner'
import { existsSync, readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import app from '@adonisjs/core/services/app'
import { dashboardPages, pageGroups } from '#tests/unit/dashboard/dashboard_pages'
import { menuEntryOf } from '../../../dashboard/src/layout/menu_entry.js'

const root = app.makePath()
const pagesFolder = app.makePath('dashboard', 'src', 'pages')

test.group('Dashboard pages, registered by their folders', () => {
  test('every page folder\'s pages.ts is read whole: each entry has its name, path, title, needs, group, order and component', ({ assert }) => {
    const pages = dashboardPages(root)
    assert.isAbove(pages.length, 20)
    for (const folder of readdirSync(pagesFolder)) {
      const file = join(pagesFolder, folder, 'pages.ts')
      if (!existsSync(file)) continue
      const declared = (readFileSync(file, 'utf8').match(/\bname: '/g) ?? []).length
      assert.equal(pages.filter((page) => page.folder === folder).length, declared, `every entry of ${folder}/pages.ts is read (name, path, title, needs, group, order[, menu: false], load, in that order)`)
    }
  })

  test('names and paths are unique, groups known, and each page loads a component of its own folder', ({ assert }) => {
    const pages = dashboardPages(root)
    const groups = pageGroups(root)
    assert.deepEqual(groups, ['overview', 'messaging', 'phones', 'integrations', 'data', 'administration'])
    for (const key of ['name', 'path'] as const) {
      const values = pages.map((page) => page[key])
      assert.deepEqual(values.filter((value, index) => values.indexOf(value) !== index), [], `duplicate ${key}s`)
    }
    for (const page of pages) {
      assert.include(groups, page.group, `${page.name}: its group`)
      assert.isTrue(existsSync(join(pagesFolder, page.folder, page.file)), `${page.name} loads ${page.folder}/${page.file}, which exists`)
    }
  })

  test('the menu opens on the Overview and ends with the own account page', ({ assert }) => {
    const menu = dashboardPages(root).filter((page) => page.inMenu)
    assert.equal(menu[0].name, 'overview')
    assert.equal(menu[0].path, '')
    assert.equal(menu.at(-1)!.name, 'account')
  })

  test('dashboard/src/pages.ts names no page: it gathers the folders\' lists', ({ assert }) => {
    const gatherer = readFileSync(app.makePath('dashboard', 'src', 'pages.ts'), 'utf8')
    assert.include(gatherer, "import.meta.glob")
    assert.notMatch(gatherer, /name: '/)
  })

  test('a page reached from another one lights the menu entry of its group it stands under', ({ assert }) => {
    const pages = dashboardPages(root).map((page) => ({ ...page, menu: page.inMenu ? undefined : (false as const) }))
    const hidden = pages.filter((page) => page.menu === false)
    assert.isAbove(hidden.length, 3)
    for (const page of hidden) {
      const lit = menuEntryOf(page, pages)
      assert.isDefined(lit, `${page.name} (/${page.path}) has a menu entry of its group named like its first segment`)
      assert.isTrue(lit!.inMenu && lit!.group === page.group, `${page.name} lights ${lit!.name}, in the menu and its group`)
    }
    const named = (name: string) => pages.find((page) => page.name === name)!
    assert.equal(menuEntryOf(named('campaign'), pages)?.name, 'campaigns')
    assert.equal(menuEntryOf(named('contact-import'), pages)?.name, 'contacts')
    assert.equal(menuEntryOf(named('messages'), pages)?.name, 'messages', 'a menu page lights itself')
  })
})
