import { test } from '@japa/runner'
import { readFile } from 'node:fs/promises'
import app from '@adonisjs/core/services/app'
import { publicEventCatalogue, isPublicEventName } from '#core/events/public_events'
import { documentedEvents } from '#tests/unit/core/webhooks_doc'

test.group('Public event catalogue', () => {
  // Per module, without a list here: a module's events.ts registers its events and its author
  // adds them to the table of docs/webhooks.md (docs/adding-a-module.md).
  test('every event a module registers is in the Events table of docs/webhooks.md, and every event of that table is registered', async ({ assert }) => {
    const documented = documentedEvents(await readFile(app.makePath('docs/webhooks.md'), 'utf8'))
    assert.isAbove(documented.length, 0)
    assert.lengthOf(new Set(documented), documented.length, 'an event is listed once')
    const registered = publicEventCatalogue.names()
    assert.deepEqual(registered.filter((name) => !documented.includes(name)), [], 'registered but missing from docs/webhooks.md, Events')
    assert.deepEqual(documented.filter((name) => !registered.includes(name as never)), [], 'in docs/webhooks.md, Events, but no module registers it')
  })

  test('every event has a family and a description, and its name is <family>.<what>', ({ assert }) => {
    for (const { name, family, description } of publicEventCatalogue.entries()) {
      assert.match(name, /^[a-z][a-z_]*\.[a-z][a-z_]*$/, name)
      assert.isAbove(family.trim().length, 0, name)
      assert.isAbove(description.trim().length, 0, name)
    }
  })

  test('the table parser reads one name per row or several joined by /', ({ assert }) => {
    const doc = ['# X', '', '## Events', '', '| Event | Sent when |', '|---|---|', '| `a.one` | x `not.this` |', '| `b.two` / `b.three` | y |', '', '## Next', '| `c.four` | z |'].join('\n')
    assert.deepEqual(documentedEvents(doc), ['a.one', 'b.two', 'b.three'])
  })

  test('only registered names are public events', ({ assert }) => {
    assert.isFalse(isPublicEventName('{base_url}'))
    assert.isFalse(isPublicEventName('toString'))
  })
})
