import { test } from '@japa/runner'
import { readFileSync, readdirSync } from 'node:fs'
import { join, relative } from 'node:path'
import app from '@adonisjs/core/services/app'
import { activityCatalogue } from '#core/activity/activity_vocabulary'
import { moduleFiles, moduleNames } from '#core/scaffold/module_scaffold'
import { asBrowser, signInAs, testKeys, useTestKeys } from '#tests/helpers/callers'

interface Written {
  file: string
  source: string
  /** The kind, or its family when the code builds the rest (`campaign.${kind}` → `campaign`). */
  kind: string
}

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name)
    if (entry.isDirectory()) return sourceFiles(path)
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : []
  })
}

/**
 * Every Activity entry the application's code writes, read from its text: `activity.info|warning|error(
 * <source>, <kind>, ...)` and `activity.record({ level, source, kind, ... })`, a source given as a
 * string or as a constant exported with a string value (`LICENSE_SOURCE`), a kind as a string or
 * a template whose dynamic part is its second half (`campaign.${kind}`).
 */
function writtenEntries(
  files = sourceFiles(app.makePath('app')).map((path) => ({ file: relative(app.appRoot.pathname, path), text: readFileSync(path, 'utf8') }))
): Written[] {
  const constants = new Map<string, string>()
  for (const { text } of files) {
    for (const [, name, value] of text.matchAll(/export const ([A-Z][A-Z0-9_]*) = '([a-z][a-z0-9_]*)'/g)) constants.set(name, value)
  }
  const sourceOf = (token: string) => (token.startsWith("'") ? token.slice(1, -1) : (constants.get(token) ?? `<unknown constant ${token}>`))
  const kindOf = (token: string) => {
    const text = token.slice(1, -1)
    const dynamic = text.indexOf('${')
    return dynamic === -1 ? text : text.slice(0, dynamic).replace(/\.$/, '')
  }
  const found: Written[] = []
  // Whoever the receiver is (`this.activity`, `(await this.activity())`, `deps.activity`): a
  // call of info/warning/error whose first two arguments read as a source and a kind.
  const token = String.raw`('[a-z][a-z0-9_]*'|[A-Z][A-Z0-9_]*)`
  const kindToken = String.raw`('[a-z][a-z0-9_]*\.[a-z0-9_]+'|\x60[a-z][a-z0-9_]*\.[^\x60\n]*\x60)`
  const call = new RegExp(String.raw`\.\s*(?:info|warning|error)\(\s*${token}\s*,\s*${kindToken}`, 'g')
  const record = new RegExp(String.raw`\.\s*record\(\{[^}]*?source:\s*${token},\s*kind:\s*${kindToken}`, 'gs')
  for (const { file, text } of files) {
    if (file.includes('app/core/activity/')) continue // the log itself: info(source, kind, ...) passes them on
    for (const pattern of [call, record]) {
      for (const [, source, kind] of text.matchAll(pattern)) found.push({ file, source: sourceOf(source), kind: kindOf(kind) })
    }
  }
  return found
}

test.group('Activity vocabulary', (group) => {
  group.setup(() => useTestKeys())

  test('every source and kind the code writes is declared, by one same declaration', ({ assert }) => {
    const written = writtenEntries()
    // The scan reads what it should: the modules and core that write the log today.
    assert.isAbove(written.length, 25)
    for (const expected of ['settings', 'storage', 'auth', 'license', 'backups', 'devices', 'webhooks', 'campaigns', 'automation']) {
      assert.isTrue(
        written.some(({ source }) => source === expected),
        `a write of source ${expected} is found`
      )
    }
    const undeclared = written.filter(({ source, kind }) => !activityCatalogue.declares(source, kind))
    assert.deepEqual(
      undeclared.map(({ file, source, kind }) => `${file}: ${source} ${kind}`),
      [],
      'declare them in the module\'s activity.ts (defineActivity) registered with registerVocabulary({ activity })'
    )
  })

  test('every declared source and kind is written somewhere: no label is left for a fact nobody records', ({ assert }) => {
    const written = writtenEntries()
    const sources = new Set(written.map(({ source }) => source))
    const kinds = new Set(written.flatMap(({ kind }) => [kind, kind.split('.')[0]]))
    assert.deepEqual(activityCatalogue.sources().filter(({ value }) => !sources.has(value)), [])
    assert.deepEqual(activityCatalogue.kinds().filter(({ value }) => !kinds.has(value)), [])
  })

  test('GET /activity/vocabulary answers every declared source and kind with its label, sorted by label', async ({ client, assert }) => {
    const response = await client.get('/api/v1/activity/vocabulary').header('x-api-key', testKeys.read)
    response.assertStatus(200)
    const body = response.body() as { sources: Array<{ value: string; label: string }>; kinds: Array<{ value: string; label: string }> }
    assert.deepEqual(body, { sources: activityCatalogue.sources(), kinds: activityCatalogue.kinds() })
    assert.deepInclude(body.sources, { value: 'devices', label: 'Phones' })
    assert.deepInclude(body.sources, { value: 'settings', label: 'Settings' })
    assert.deepInclude(body.kinds, { value: 'webhook.disabled', label: 'Webhooks switched off' })
    assert.deepInclude(body.kinds, { value: 'account', label: 'Dashboard accounts' })
    for (const list of [body.sources, body.kinds]) {
      const labels = list.map(({ label }) => label)
      assert.deepEqual(labels, [...labels].sort((a, b) => a.localeCompare(b, 'en')))
    }
    // Every kind the filter offers is one GET /activity takes.
    for (const { value } of body.kinds) {
      ;(await client.get('/api/v1/activity').qs({ kind: value, limit: 1 }).header('x-api-key', testKeys.read)).assertStatus(200)
    }
  })

  test('GET /activity/vocabulary is read by every dashboard role and refused without credentials', async ({ client }) => {
    for (const role of ['readonly', 'operator', 'superadmin'] as const) {
      const session = await signInAs(client, role)
      ;(await asBrowser(client.get('/api/v1/activity/vocabulary'), session)).assertStatus(200)
    }
    ;(await client.get('/api/v1/activity/vocabulary')).assertStatus(401)
  })

  test('make:module writes a module whose Activity writes its activity.ts declares', async ({ assert }) => {
    const files = moduleFiles(moduleNames('price_lists'), '0999')
    const written = writtenEntries(Object.entries(files).filter(([file]) => file.endsWith('.ts')).map(([file, text]) => ({ file, text })))
    assert.deepEqual(written.map(({ source, kind }) => [source, kind]), [['price_lists', 'price_list.created']])
    const declaration = /defineActivity\(\{\s*sources: \{ (\w+): '([^']+)' \},\s*kinds: \{ (\w+): '([^']+)' \},?\s*\}\)/.exec(files['app/modules/price_lists/activity.ts'])
    assert.isNotNull(declaration, 'activity.ts declares one source and one kind family')
    assert.deepEqual(declaration!.slice(1), ['price_lists', 'Price lists', 'price_list', 'Price lists'])
    assert.include(files['app/modules/price_lists/price_lists_provider.ts'], 'activity: priceListsActivity')
  })

  test('the catalogue refuses a source or kind declared twice, or named as the filters do not take it', ({ assert }) => {
    assert.throws(() => activityCatalogue.add({ sources: { devices: 'Phones again' }, kinds: {} }), /declared twice/)
    assert.throws(() => activityCatalogue.add({ sources: {}, kinds: { device: 'Phones again' } }), /declared twice/)
    assert.throws(() => activityCatalogue.add({ sources: { 'Bad-Name': 'x' }, kinds: {} }), /lower-case/)
    assert.throws(() => activityCatalogue.add({ sources: {}, kinds: { 'a.b.c': 'x' } }), /<family>/)
  })
})
