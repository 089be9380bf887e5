import { test } from '@japa/runner'
import { fieldsOf, humanize, inputOf, orderedSections, sectionIntro, sectionTitle, shownValue, textValue, type SectionSchema } from '../../../dashboard/src/pages/settings/schema_fields.js'
import type { ApiClient } from '@japa/api-client'
import { testKeys, useTestKeys } from '#tests/helpers/callers'

/**
 * The dashboard draws a settings section that has no component of its own from the OpenAPI
 * document's schema of that section (dashboard/src/pages/settings/SchemaSection.vue). These read
 * the gateway's own document as the dashboard's build does, and hold what each field becomes.
 */
test.group('Settings sections drawn from the OpenAPI document', (group) => {
  group.setup(() => useTestKeys())

  async function documentSections(client: ApiClient): Promise<Record<string, SectionSchema>> {
    const document = (await client.get('/api-docs/openapi.json')).body()
    return document.components.schemas.Settings.properties
  }

  test('the tabs are the sections GET /settings answers, today\'s five first, then the others by name', async ({ client, assert }) => {
    const sections = await documentSections(client)
    const answered = (await client.get('/api/v1/settings').header('x-api-key', testKeys.admin)).body()
    assert.sameMembers(Object.keys(answered), Object.keys(sections))
    assert.deepEqual(orderedSections(['general', 'sending', 'reception', 'notifications', 'backup']), ['general', 'sending', 'reception', 'notifications', 'backup'])
    assert.deepEqual(orderedSections(['zeta', 'backup', 'price_lists', 'general', 'alpha', 'sending']), ['general', 'sending', 'backup', 'alpha', 'price_lists', 'zeta'])
    assert.deepEqual(
      orderedSections(Object.keys(answered)).slice(0, 5),
      ['general', 'sending', 'reception', 'notifications', 'backup']
    )
    assert.equal(sectionTitle('price_lists'), 'Price lists')
    assert.equal(sectionTitle('notes', { title: 'Notes and memos' }), 'Notes and memos')
    // The document's section description lists its defaults: not an intro for an operator.
    assert.isUndefined(sectionIntro(sections.general))
  })

  test('every field of every section gets an input and a label from the schema', async ({ client, assert }) => {
    const sections = await documentSections(client)
    for (const [name, schema] of Object.entries(sections)) {
      const fields = fieldsOf(schema)
      assert.deepEqual(
        fields.map((field) => field.name),
        Object.keys(schema.properties ?? {}),
        `${name}: a row per field, in the schema's order`
      )
      for (const field of fields) assert.isAbove(field.label.length, 0)
    }
    const field = (section: string, name: string) => fieldsOf(sections[section]).find((candidate) => candidate.name === name)!
    assert.deepEqual(field('general', 'stripDiacritics').input, { kind: 'boolean' })
    assert.equal(field('general', 'stripDiacritics').label, 'Strip diacritics')
    assert.deepEqual(field('sending', 'maxAttempts').input, { kind: 'number', integer: true, nullable: false, min: 1, max: 10 })
    assert.deepInclude(field('sending', 'simPerMinuteLimit').input, { kind: 'number', nullable: true })
    assert.deepEqual(field('sending', 'routingMode').input, {
      kind: 'choice',
      nullable: false,
      options: [
        { value: 'round_robin', label: 'Round robin' },
        { value: 'priority', label: 'Priority' },
        { value: 'least_used', label: 'Least used' },
      ],
    })
    assert.deepEqual(field('reception', 'localPrefix').input, { kind: 'text', nullable: true, secret: false })
    assert.deepEqual(field('reception', 'optOutKeywords').input, { kind: 'list', nullable: false })
    assert.equal(field('reception', 'optOutKeywords').help, 'Single words that opt the sender out (case and accents ignored)')
    assert.deepEqual(field('notifications', 'smtpPassword').input, { kind: 'text', nullable: true, secret: true })
    assert.deepEqual(field('notifications', 'smtpPort').input, { kind: 'number', integer: true, nullable: false, min: 1, max: 65535 })
    // A list of objects is shown, not edited here.
    assert.deepEqual(field('sending', 'prefixRules').input, { kind: 'other' })
  })

  test('a field\'s label comes from its title, else its name in words; values read in words', ({ assert }) => {
    assert.equal(humanize('maxNotes'), 'Max notes')
    assert.equal(humanize('price_lists'), 'Price lists')
    assert.equal(humanize('smtpFrom'), 'Smtp from')
    const [titled] = fieldsOf({ properties: { maxNotes: { type: 'integer', title: 'Notes at most', description: 'Beyond it, creating one is refused' } } })
    assert.equal(titled.label, 'Notes at most')
    assert.equal(titled.help, 'Beyond it, creating one is refused')
    const choice = { name: 'mode', label: 'Mode', input: inputOf({ enum: ['round_robin', 'priority'] }) }
    assert.equal(shownValue(choice, 'round_robin'), 'Round robin')
    assert.equal(shownValue({ name: 'on', label: 'On', input: { kind: 'boolean' } }, false), 'No')
    assert.equal(shownValue({ name: 'words', label: 'Words', input: { kind: 'list', nullable: false } }, ['STOP', 'END']), 'STOP, END')
    assert.equal(shownValue({ name: 'words', label: 'Words', input: { kind: 'list', nullable: false } }, []), 'None')
    assert.equal(shownValue({ name: 'reply', label: 'Reply', input: { kind: 'text', nullable: true, secret: false } }, null), 'Not set')
    assert.isNull(textValue({ kind: 'text', nullable: true, secret: false }, '  '))
    assert.equal(textValue({ kind: 'text', nullable: false, secret: false }, ''), '')
  })
})
