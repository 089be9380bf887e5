import { test } from '@japa/runner'
import { createHmac } from 'node:crypto'
import app from '@adonisjs/core/services/app'
import db from '@adonisjs/lucid/services/db'
import emitter from '@adonisjs/core/services/emitter'
import type { ManualClock } from '#core/time/clock'
import { SettingsStore } from '#core/settings/settings_store'
import { useManualClock } from '#tests/helpers/clock'
import { testKeys, useTestKeys } from '#tests/helpers/callers'
import { clearMessaging, messageCount } from '#tests/helpers/messages'
import { answerStatus, clearWebhooks, startReceiver, type Receiver } from '#tests/helpers/webhooks'
import { clearAutomation, createRule, outbound, receive, runs, useRuleEngine } from '#tests/helpers/automation'
import { DateTime } from 'luxon'
import AutomationRule from '#modules/automation/models/automation_rule'
import { MAX_RULES } from '#modules/automation/services/rule_book'

const START = '2026-06-01T10:00:00.000Z' // a Monday, 12:00 in Paris
const SENDER = '+33612345678'
const admin = () => testKeys.admin
/** The help keyword's settings as shipped (the shared helper's reset does not know them). */
const signedWith = (call: { headers: Record<string, any>; rawBody: string }, secret: string) =>
  call.headers['x-signature'] === `sha256=${createHmac('sha256', secret).update(`${call.headers['x-timestamp']}.${call.headers['x-delivery-id']}.${call.rawBody}`).digest('hex')}`

const HELP_DEFAULTS = { helpKeywords: ['HELP'], helpReply: null }

test.group('Automation rules: the API', (group) => {
  group.setup(() => useTestKeys())
  group.each.setup(async () => {
    await clearMessaging()
    await clearAutomation()
    await db.from('contact_groups').delete()
  })

  test('create, read, list in order, change, reorder and delete', async ({ client, assert }) => {
    const first = await createRule(client, { name: 'Hours', conditions: [{ type: 'text', match: 'first_word', value: 'hours' }], actions: [{ type: 'reply', text: 'Open 9-18' }] })
    first.assertStatus(201)
    assert.containsSubset(first.body(), { name: 'Hours', enabled: true, stopAfter: false, position: 1, callsUrl: false })
    assert.notProperty(first.body(), 'callSecret')
    const second = await createRule(client, { name: 'Catch-all', actions: [{ type: 'add_tags', tags: ['inbound'] }], stopAfter: true })
    assert.equal(second.body().position, 2)

    const list = await client.get('/api/v1/rules').header('x-api-key', testKeys.read)
    assert.deepEqual(list.body().data.map((rule: any) => rule.name), ['Hours', 'Catch-all'])

    const changed = await client.patch(`/api/v1/rules/${first.body().id}`).header('x-api-key', admin()).json({ enabled: false, name: 'Opening hours' })
    assert.containsSubset(changed.body(), { enabled: false, name: 'Opening hours' })

    const ordered = await client.put('/api/v1/rules/order').header('x-api-key', admin()).json({ ids: [second.body().id, first.body().id] })
    ordered.assertStatus(200)
    assert.deepEqual(ordered.body().data.map((rule: any) => [rule.name, rule.position]), [['Catch-all', 1], ['Opening hours', 2]])
    const partial = await client.put('/api/v1/rules/order').header('x-api-key', admin()).json({ ids: [second.body().id] })
    partial.assertStatus(409)
    assert.equal(partial.body().error.code, 'RULE_ORDER_MISMATCH')

    ;(await client.delete(`/api/v1/rules/${first.body().id}`).header('x-api-key', admin())).assertStatus(204)
    ;(await client.get(`/api/v1/rules/${first.body().id}`).header('x-api-key', testKeys.read)).assertStatus(404)
    const activity = await db.from('activity_entries').where('source', 'automation').orderBy('id', 'asc')
    assert.includeMembers(activity.map((entry) => entry.message), ['Rule "Hours" created', 'Rule "Opening hours" changed: name, enabled', 'Rule "Opening hours" deleted'])
  })

  test('PUT /rules/order: a list that does not name every rule exactly once (missing, unknown or repeated) is 409 RULE_ORDER_MISMATCH naming the ids; a malformed one is 400', async ({ client, assert }) => {
    const first = (await createRule(client, { name: 'First', actions: [{ type: 'opt_out' }] })).body().id
    const second = (await createRule(client, { name: 'Second', actions: [{ type: 'opt_out' }] })).body().id
    const order = (ids: unknown) => client.put('/api/v1/rules/order').header('x-api-key', admin()).json({ ids })
    const mismatches: Array<[string[], Record<string, string[]>]> = [
      [[first, first], { missing: [second], unknown: [], repeated: [first] }],
      [[first, second, second], { missing: [], unknown: [], repeated: [second] }],
      [[first], { missing: [second], unknown: [], repeated: [] }],
      [[first, second, '999999'], { missing: [], unknown: ['999999'], repeated: [] }],
      [[], { missing: [first, second], unknown: [], repeated: [] }],
    ]
    for (const [ids, details] of mismatches) {
      const refused = await order(ids)
      refused.assertStatus(409)
      assert.equal(refused.body().error.code, 'RULE_ORDER_MISMATCH', JSON.stringify(ids))
      assert.deepEqual(refused.body().error.details, details, JSON.stringify(ids))
    }
    for (const malformed of ['1,2', [1, 2], ['abc'], null]) {
      const refused = await order(malformed)
      refused.assertStatus(400)
      assert.equal(refused.body().error.code, 'VALIDATION_ERROR', JSON.stringify(malformed))
    }
    // Nothing refused moved a rule.
    const list = await client.get('/api/v1/rules').header('x-api-key', testKeys.read)
    assert.deepEqual(list.body().data.map((rule: any) => [rule.id, rule.position]), [[first, 1], [second, 2]])
  })

  test('the 201st rule is refused 409 RULE_LIMIT_REACHED; deleting one makes room', async ({ client, assert }) => {
    const now = DateTime.fromISO(START)
    await AutomationRule.createMany(
      Array.from({ length: MAX_RULES }, (_, index) => ({ name: `Rule ${index}`, enabled: false, stopAfter: false, conditions: [], actions: [{ type: 'opt_out' as const }], position: index + 1, callSecretSealed: null, createdAt: now, updatedAt: now }))
    )
    const refused = await createRule(client, { name: 'One too many', actions: [{ type: 'opt_out' }] })
    refused.assertStatus(409)
    assert.equal(refused.body().error.code, 'RULE_LIMIT_REACHED')
    assert.deepEqual(refused.body().error.details, { limit: 200 })
    const [{ id }] = await db.from('automation_rules').select('id').limit(1)
    ;(await client.delete(`/api/v1/rules/${id}`).header('x-api-key', admin())).assertStatus(204)
    ;(await createRule(client, { name: 'One too many', actions: [{ type: 'opt_out' }] })).assertStatus(201)
  })

  test('POST /rules/{id}/secret answers the whole rule with a new callSecret, shown once; a rule that calls no URL is 409 RULE_CALLS_NO_URL', async ({ client, assert }) => {
    const rule = await createRule(client, { name: 'Hook', actions: [{ type: 'call_url', url: 'https://crm.example.com/sms-hook' }] })
    const rotated = await client.post(`/api/v1/rules/${rule.body().id}/secret`).header('x-api-key', admin())
    rotated.assertStatus(200)
    const { callSecret, updatedAt, ...rest } = rotated.body()
    const { callSecret: first, updatedAt: _created, ...before } = rule.body()
    assert.deepEqual(rest, before)
    assert.match(callSecret, /^rsec_[\w-]{43}$/)
    assert.notEqual(callSecret, first)
    assert.notProperty((await client.get(`/api/v1/rules/${rule.body().id}`).header('x-api-key', testKeys.read)).body(), 'callSecret')
    const activity = await db.from('activity_entries').where('source', 'automation').orderBy('id', 'desc').first()
    assert.equal(activity.message, 'Secret of rule "Hook" rotated')
    assert.notInclude(JSON.stringify(activity), callSecret)

    const plain = await createRule(client, { name: 'Plain', actions: [{ type: 'opt_out' }] })
    const refused = await client.post(`/api/v1/rules/${plain.body().id}/secret`).header('x-api-key', admin())
    refused.assertStatus(409)
    assert.equal(refused.body().error.code, 'RULE_CALLS_NO_URL')
    ;(await client.post('/api/v1/rules/999999/secret').header('x-api-key', admin())).assertStatus(404)
    ;(await client.post(`/api/v1/rules/${rule.body().id}/secret`).header('x-api-key', testKeys.read)).assertStatus(403)
  })

  test('the test box names the built-in keyword as the run log does: kind, then the listed keyword upper-cased; null when none or when keywords are off', async ({ client, assert }) => {
    const settings = await app.container.make(SettingsStore)
    await settings.update({ reception: { optInKeywords: ['Start', 'Reprise'], helpReply: 'Reply STOP to stop' } })
    const rule = await createRule(client, { name: 'Any', actions: [{ type: 'opt_out' }] })
    const keywordOf = async (text: string) => (await client.post(`/api/v1/rules/${rule.body().id}/test`).header('x-api-key', testKeys.read).json({ text, from: SENDER })).body().keyword
    try {
      assert.equal(await keywordOf('stop'), 'Opt-out keyword STOP')
      assert.equal(await keywordOf('réprisé !'), 'Opt-in keyword REPRISE')
      assert.equal(await keywordOf('Help?'), 'Help keyword HELP')
      assert.isNull(await keywordOf('help me'))
      await settings.update({ reception: { helpReply: null } })
      assert.isNull(await keywordOf('HELP'))
      await settings.update({ reception: { optOutKeywordsEnabled: false } })
      assert.isNull(await keywordOf('STOP'))
    } finally {
      await settings.update({ reception: HELP_DEFAULTS })
    }
  })

  test('bad rules are refused in the error format, naming the field', async ({ client, assert }) => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ name: 'x', actions: [] }, 'actions'],
      [{ name: 'x', actions: [{ type: 'teleport' }] }, 'actions.0'],
      [{ name: 'x', actions: [{ type: 'reply' }] }, 'actions.0.text'],
      [{ name: 'x', actions: [{ type: 'reply', text: 'a', templateId: '1' }] }, 'actions.0.text'],
      [{ name: 'x', actions: [{ type: 'reply', text: 'a', colour: 'red' }] }, 'actions.0.colour'],
      [{ name: 'x', actions: [{ type: 'add_to_group', groupId: '999' }] }, 'actions.0.groupId'],
      [{ name: 'x', actions: [{ type: 'reply', templateId: '999' }] }, 'actions.0.templateId'],
      [{ name: 'x', actions: [{ type: 'assign', accountId: '999' }] }, 'actions.0.accountId'],
      [{ name: 'x', actions: [{ type: 'call_url', url: 'ftp://example.com' }] }, 'actions.0.url'],
      [{ name: 'x', actions: [{ type: 'opt_out' }], conditions: [{ type: 'text', match: 'regex', value: '(a)\\1' }] }, 'conditions.0.value'],
      [{ name: 'x', actions: [{ type: 'opt_out' }], conditions: [{ type: 'time_window', days: [8], start: '09:00', end: '18:00' }] }, 'conditions.0.days.0'],
      [{ name: 'x', actions: [{ type: 'opt_out' }], conditions: [{ type: 'received_on', deviceId: '4242' }] }, 'conditions.0.deviceId'],
      [{ name: 'x', actions: [{ type: 'opt_out' }], enabled: 'yes' }, 'enabled'],
    ]
    for (const [rule, field] of cases) {
      const refused = await createRule(client, rule)
      refused.assertStatus(400)
      assert.equal(refused.body().error.code, 'VALIDATION_ERROR', JSON.stringify(rule))
      assert.include(refused.body().error.details.map((detail: any) => detail.field), field, JSON.stringify(refused.body()))
    }
    const backreference = await createRule(client, { name: 'x', actions: [{ type: 'opt_out' }], conditions: [{ type: 'text', match: 'regex', value: '(a)\\1' }] })
    assert.include(backreference.body().error.message, 'not a valid RE2 regular expression')
    const teleport = await createRule(client, { name: 'x', actions: [{ type: 'teleport' }] })
    assert.include(teleport.body().error.message, 'The action type must be one of reply, add_to_group')
    ;(await createRule(client, { name: 'Same', actions: [{ type: 'opt_out' }] })).assertStatus(201)
    const twice = await createRule(client, { name: 'same', actions: [{ type: 'opt_out' }] })
    twice.assertStatus(409)
    // A read key reads rules but cannot write them.
    const readOnly = await createRule(client, { name: 'No', actions: [{ type: 'opt_out' }] }, testKeys.read)
    readOnly.assertStatus(403)
    ;(await client.get('/api/v1/rules').header('x-api-key', testKeys.read)).assertStatus(200)
  })

  test('a catastrophic-backtracking pattern runs in linear time: the test box answers on a long text', async ({ client, assert }) => {
    const rule = await createRule(client, { name: 'Evil', conditions: [{ type: 'text', match: 'regex', value: '^(a+)+$' }], actions: [{ type: 'opt_out' }] })
    rule.assertStatus(201)
    const verdict = await client.post(`/api/v1/rules/${rule.body().id}/test`).header('x-api-key', testKeys.read).json({ text: `${'a'.repeat(1500)}!`, from: SENDER })
    verdict.assertStatus(200)
    assert.isFalse(verdict.body().matches)
    const matching = await client.post(`/api/v1/rules/${rule.body().id}/test`).header('x-api-key', testKeys.read).json({ text: 'a'.repeat(1500), from: SENDER })
    assert.isTrue(matching.body().matches)
  })

  test('the test box says what would run for a sender, and does nothing', async ({ client, assert }) => {
    await (await app.container.make(SettingsStore)).update({ sending: { timezone: 'Europe/Paris' } })
    const contact = await client.post('/api/v1/contacts').header('x-api-key', admin()).json({ phone: SENDER, firstName: 'Léa' })
    const group = await client.post('/api/v1/groups').header('x-api-key', admin()).json({ name: 'VIP' })
    await client.post(`/api/v1/groups/${group.body().id}/members`).header('x-api-key', admin()).json({ contactIds: [contact.body().id] })
    const rule = await createRule(client, {
      name: 'Prices',
      conditions: [
        { type: 'text', match: 'contains', value: 'prix' },
        { type: 'sender_group', groupId: group.body().id, inGroup: true },
        { type: 'time_window', days: [1, 2, 3, 4, 5], start: '09:00', end: '18:00' },
      ],
      actions: [{ type: 'reply', text: 'Bonjour {{firstName|vous}}, voici nos prix' }, { type: 'add_tags', tags: ['prices'] }],
    })
    const before = await messageCount()
    const tried = await client.post(`/api/v1/rules/${rule.body().id}/test`).header('x-api-key', testKeys.read).json({ text: 'Quel est le PRÍX ?', from: SENDER, at: '2026-06-01T10:00:00Z' })
    tried.assertStatus(200)
    assert.isTrue(tried.body().matches)
    assert.deepEqual(tried.body().conditions.map((condition: any) => condition.holds), [true, true, true])
    assert.equal(tried.body().actions[0].reply, 'Bonjour Léa, voici nos prix')
    // Saturday, or a stranger: it would not run.
    const weekend = await client.post(`/api/v1/rules/${rule.body().id}/test`).header('x-api-key', testKeys.read).json({ text: 'prix', from: SENDER, at: '2026-06-06T10:00:00Z' })
    assert.deepEqual(weekend.body().conditions.map((condition: any) => condition.holds), [true, true, false])
    assert.deepEqual(weekend.body().actions, [])
    const stranger = await client.post(`/api/v1/rules/${rule.body().id}/test`).header('x-api-key', testKeys.read).json({ text: 'prix', from: '+33699999999', at: '2026-06-01T10:00:00Z' })
    assert.isFalse(stranger.body().matches)
    const keyword = await client.post(`/api/v1/rules/${rule.body().id}/test`).header('x-api-key', testKeys.read).json({ text: ' stop. ', from: SENDER })
    assert.equal(keyword.body().keyword, 'Opt-out keyword STOP')
    assert.equal(await messageCount(), before)
    assert.deepEqual((await client.get(`/api/v1/contacts/${contact.body().id}`).header('x-api-key', testKeys.read)).body().tags, [])
    const bad = await client.post(`/api/v1/rules/${rule.body().id}/test`).header('x-api-key', testKeys.read).json({ text: 'x', from: 'nope' })
    bad.assertStatus(400)
    await (await app.container.make(SettingsStore)).update({ sending: { timezone: 'UTC' } })
  })
})

test.group('Automation rules: runs on incoming SMS', (group) => {
  let clock: ManualClock
  let engine: Awaited<ReturnType<typeof useRuleEngine>>
  let target: Receiver

  group.setup(() => useTestKeys())
  group.each.setup(async () => {
    await clearMessaging()
    await clearAutomation()
    await clearWebhooks()
    await db.from('contact_groups').delete()
    const manual = useManualClock(START)
    clock = manual.clock
    engine = await useRuleEngine(clock)
    target = await startReceiver()
    return async () => {
      await engine.stop()
      await target.close()
      manual.restore()
    }
  })

  test('a keyword rule replies on the receiving phone and SIM, joins a group, tags, calls its URL signed; logged; rule.triggered once', async ({ client, assert }) => {
    const group = await client.post('/api/v1/groups').header('x-api-key', admin()).json({ name: 'Promo' })
    const rule = await createRule(client, {
      name: 'Join',
      conditions: [{ type: 'text', match: 'first_word', value: 'JOIN' }],
      actions: [
        { type: 'reply', text: 'Welcome {{name|friend}}!' },
        { type: 'add_to_group', groupId: group.body().id },
        { type: 'add_tags', tags: ['promo'] },
        { type: 'call_url', url: target.url },
      ],
    })
    rule.assertStatus(201)
    const secret = rule.body().callSecret
    assert.match(secret, /^rsec_/)
    assert.isTrue(rule.body().callsUrl)
    assert.notProperty((await client.get(`/api/v1/rules/${rule.body().id}`).header('x-api-key', testKeys.read)).body(), 'callSecret')

    const triggered: any[] = []
    const listener = (event: any) => triggered.push(event)
    emitter.on('rule.triggered', listener)
    const stored = await receive(clock, SENDER, 'Joîn please', 3, 1)
    await engine.run()
    emitter.off('rule.triggered', listener)

    const [reply] = await outbound(SENDER)
    assert.containsSubset(reply, { body: 'Welcome friend!', category: 'conversation', device_id: '3', sim_slot: 1, status: 'queued' })
    const contact = (await client.get('/api/v1/contacts').qs({ phone: SENDER }).header('x-api-key', testKeys.read)).body().data[0]
    assert.deepEqual(contact.tags, ['promo'])
    assert.deepEqual(contact.groups.map((g: any) => g.name), ['Promo'])

    assert.lengthOf(target.calls, 1)
    const [call] = target.calls
    const body = JSON.parse(call.rawBody)
    assert.deepEqual(body, { ruleId: rule.body().id, ruleName: 'Join', conversationId: String(stored.conversationId), maskedPhone: '+33•••••••78', occurredOn: START })
    const expected = createHmac('sha256', secret).update(`${call.headers['x-timestamp']}.${call.headers['x-delivery-id']}.${call.rawBody}`).digest('hex')
    assert.equal(call.headers['x-signature'], `sha256=${expected}`)

    assert.lengthOf(triggered, 1)
    assert.deepInclude(triggered[0], { id: rule.body().id, conversationId: String(stored.conversationId) })

    const [run] = await runs(client)
    assert.containsSubset(run, { ruleId: rule.body().id, ruleName: 'Join', kind: 'rule', status: 'done', messageId: String(stored.id), maskedPhone: '+33•••••••78', deviceId: '3', simSlot: 1 })
    assert.deepEqual(run.actions.map((action: any) => [action.type, action.status]), [['reply', 'done'], ['add_to_group', 'done'], ['add_tags', 'done'], ['call_url', 'done']])
    assert.equal(run.actions[0].messageId, String(reply.id))
    assert.notInclude(JSON.stringify(run), '612345678')
    assert.notInclude(JSON.stringify(run), 'Joîn')

    // The same SMS never runs twice: another pass finds nothing to plan.
    await engine.run()
    assert.lengthOf(await runs(client), 1)
    assert.lengthOf(await outbound(SENDER), 1)
  })

  test('rules run in order, all whose conditions hold, until one that stops the others; disabled rules never', async ({ client, assert }) => {
    await createRule(client, { name: 'Tag all', actions: [{ type: 'add_tags', tags: ['seen'] }] })
    await createRule(client, { name: 'Off', enabled: false, actions: [{ type: 'add_tags', tags: ['off'] }] })
    await createRule(client, { name: 'Help', conditions: [{ type: 'text', match: 'contains', value: 'help' }], actions: [{ type: 'reply', text: 'Call us' }], stopAfter: true })
    await createRule(client, { name: 'After', actions: [{ type: 'add_tags', tags: ['after'] }] })
    await receive(clock, SENDER, 'I need HELP')
    await receive(clock, '+33611111111', 'hello')
    await engine.run()
    const log = await runs(client)
    const byPhone = (masked: string) => log.filter((run) => run.maskedPhone === masked).map((run) => run.ruleName).sort()
    assert.deepEqual(byPhone('+33•••••••78'), ['Help', 'Tag all'])
    assert.deepEqual(byPhone('+33•••••••11'), ['After', 'Tag all'])
  })

  test('STOP opts the sender out (waiting messages withdrawn) and confirms; START opts back in; other rules still run', async ({ client, assert }) => {
    await (await app.container.make(SettingsStore)).update({ reception: { optOutReply: 'You will get no more messages. Reply START to come back.', optInReply: 'Welcome back' } })
    const waiting = await client.post('/api/v1/messages').header('x-api-key', testKeys.send).json({ to: SENDER, body: 'Promo', category: 'campaign' })
    await createRule(client, { name: 'Answer', actions: [{ type: 'reply', text: 'Thanks' }] })
    await receive(clock, SENDER, 'Stop!')
    await engine.run()
    const contact = (await client.get('/api/v1/contacts').qs({ phone: SENDER }).header('x-api-key', testKeys.read)).body().data[0]
    assert.isTrue(contact.blacklisted)
    const promo = await db.from('messages').where('id', waiting.body().accepted[0].id).first()
    assert.deepInclude(promo, { status: 'cancelled', error_code: 'CONTACT_BLACKLISTED' })
    const sent = await outbound(SENDER)
    assert.deepEqual(sent.filter((m) => m.status === 'queued').map((m) => m.body), ['You will get no more messages. Reply START to come back.'])
    const log = await runs(client)
    const keyword = log.find((run) => run.kind === 'keyword')
    assert.containsSubset(keyword, { ruleName: 'Opt-out keyword STOP', ruleId: null, status: 'done' })
    assert.deepEqual(keyword.actions.map((action: any) => [action.type, action.status]), [['opt_out', 'done'], ['reply', 'done']])
    // The rule's own reply is refused to an opted-out number, and says so.
    const answer = log.find((run) => run.ruleName === 'Answer')
    assert.deepEqual(answer.actions.map((action: any) => [action.status, action.detail]), [['skipped', 'The sender opted out']])
    // An API send is refused too.
    ;(await client.post('/api/v1/messages').header('x-api-key', testKeys.send).json({ to: SENDER, body: 'x' })).body().error.code === 'CONTACT_BLACKLISTED' || assert.fail('send not refused')

    await clock.advance(60_000)
    await receive(clock, SENDER, 'start')
    await engine.run()
    assert.isFalse((await client.get('/api/v1/contacts').qs({ phone: SENDER }).header('x-api-key', testKeys.read)).body().data[0].blacklisted)
    assert.include((await outbound(SENDER)).map((m) => m.body), 'Welcome back')

    // Keywords off: STOP is text like any other.
    await (await app.container.make(SettingsStore)).update({ reception: { optOutKeywordsEnabled: false } })
    await receive(clock, SENDER, 'STOP')
    await engine.run()
    assert.isFalse((await client.get('/api/v1/contacts').qs({ phone: SENDER }).header('x-api-key', testKeys.read)).body().data[0].blacklisted)
  })

  test('an opt-out confirmation leaves from the phone and SIM that received the keyword', async ({ assert }) => {
    await (await app.container.make(SettingsStore)).update({ reception: { optOutReply: 'Unsubscribed' } })
    await receive(clock, SENDER, 'STOP', 3, 1)
    await engine.run()
    const [confirmation] = await outbound(SENDER)
    assert.containsSubset(confirmation, { body: 'Unsubscribed', device_id: '3', sim_slot: 1, category: 'conversation' })
  })

  test('add_tags on a number without a contact creates one with the number alone; remove_tags creates none', async ({ client, assert }) => {
    await createRule(client, { name: 'Tag', conditions: [{ type: 'text', match: 'first_word', value: 'tag' }], actions: [{ type: 'add_tags', tags: ['lead'] }] })
    await createRule(client, { name: 'Untag', conditions: [{ type: 'text', match: 'first_word', value: 'untag' }], actions: [{ type: 'remove_tags', tags: ['lead'] }] })
    await receive(clock, SENDER, 'tag me')
    await receive(clock, '+33611111111', 'untag me')
    await engine.run()
    const contacts = (await client.get('/api/v1/contacts').header('x-api-key', testKeys.read)).body().data
    assert.lengthOf(contacts, 1)
    assert.containsSubset(contacts[0], { phone: SENDER, firstName: null, lastName: null, tags: ['lead'], blacklisted: false })
    const untag = (await runs(client)).find((run) => run.ruleName === 'Untag')
    assert.deepEqual(untag.actions.map((action: any) => [action.status, action.detail]), [['skipped', 'Had none of the tags']])
  })

  test('built-in keyword runs do not emit rule.triggered; a rule run on the same SMS does', async ({ client, assert }) => {
    await (await app.container.make(SettingsStore)).update({ reception: { optOutReply: 'Unsubscribed', helpReply: 'Reply STOP to stop' } })
    const rule = await createRule(client, { name: 'Opt-outs to CRM', conditions: [{ type: 'text', match: 'first_word', value: 'stop' }], actions: [{ type: 'add_tags', tags: ['stopped'] }] })
    const triggered: any[] = []
    const listener = (event: any) => triggered.push(event)
    emitter.on('rule.triggered', listener)
    try {
      await receive(clock, '+33611111111', 'HELP')
      await receive(clock, SENDER, 'STOP')
      await engine.run()
    } finally {
      emitter.off('rule.triggered', listener)
      await (await app.container.make(SettingsStore)).update({ reception: HELP_DEFAULTS })
    }
    assert.deepEqual((await runs(client)).map((run) => [run.kind, run.ruleName]).sort(), [['keyword', 'Help keyword HELP'], ['keyword', 'Opt-out keyword STOP'], ['rule', 'Opt-outs to CRM']])
    assert.deepEqual(triggered.map((event) => event.id), [rule.body().id])
  })

  test('HELP answers the sender with helpReply, opted out or not, within the reply limit; without a reply or with the keywords off it is text for the rules', async ({ client, assert }) => {
    const settings = await app.container.make(SettingsStore)
    await settings.update({ reception: { helpKeywords: ['HELP', 'AIDE'], helpReply: 'Acme: reply STOP to opt out' } })
    await createRule(client, { name: 'Echo', actions: [{ type: 'add_tags', tags: ['seen'] }] })
    try {
      await receive(clock, SENDER, ' Aidé ! ', 2, 1)
      await engine.run()
      const [reply] = await outbound(SENDER)
      assert.containsSubset(reply, { body: 'Acme: reply STOP to opt out', device_id: '2', sim_slot: 1, category: 'conversation', status: 'queued' })
      const help = (await runs(client)).find((run) => run.kind === 'keyword')
      assert.containsSubset(help, { ruleId: null, ruleName: 'Help keyword AIDE', status: 'done' })
      assert.deepEqual(help.actions.map((action: any) => [action.type, action.status, action.messageId]), [['reply', 'done', String(reply.id)]])
      // The rules still run after it.
      assert.include((await runs(client)).map((run) => run.ruleName), 'Echo')

      // Opted out (the first reply, still waiting, is withdrawn with the rest): a help reply still
      // reaches them, they asked for it.
      await receive(clock, SENDER, 'STOP')
      await receive(clock, SENDER, 'help')
      await engine.run()
      assert.isTrue((await client.get('/api/v1/contacts').qs({ phone: SENDER }).header('x-api-key', testKeys.read)).body().data[0].blacklisted)
      assert.deepEqual((await outbound(SENDER)).map((m) => [m.body, m.status]), [['Acme: reply STOP to opt out', 'cancelled'], ['Acme: reply STOP to opt out', 'queued']])

      // The reply limit (3 per 10 minutes) counts help replies too.
      await receive(clock, SENDER, 'help')
      await receive(clock, SENDER, 'help')
      await engine.run()
      assert.lengthOf(await outbound(SENDER), 3)
      const helps = (await runs(client, { kind: 'keyword' })).filter((run) => run.ruleName === 'Help keyword HELP')
      assert.deepEqual(helps.map((run) => run.actions[0].status).sort(), ['done', 'done', 'skipped'])
      assert.include(helps.find((run) => run.actions[0].status === 'skipped').actions[0].detail, 'Reply limit reached')

      // No reply written: HELP is an SMS like any other (no keyword run).
      await settings.update({ reception: { helpReply: null } })
      await receive(clock, '+33611111111', 'HELP')
      await settings.update({ reception: { helpReply: 'Acme: reply STOP to opt out', optOutKeywordsEnabled: false } })
      await receive(clock, '+33622222222', 'HELP')
      await engine.run()
      assert.deepEqual((await runs(client)).filter((run) => run.maskedPhone !== '+33•••••••78').map((run) => run.ruleName), ['Echo', 'Echo'])
      assert.lengthOf(await outbound('+33611111111'), 0)
      assert.lengthOf(await outbound('+33622222222'), 0)
    } finally {
      await settings.update({ reception: HELP_DEFAULTS })
    }
  })

  test('after POST /rules/{id}/secret every call is signed with the new secret, the retries of calls recorded before included', async ({ client, assert }) => {
    const rule = await createRule(client, { name: 'Hook', actions: [{ type: 'call_url', url: target.url }] })
    const oldSecret = rule.body().callSecret
    target.answerWith(answerStatus(500))
    await receive(clock, SENDER, 'one')
    await engine.run()
    assert.lengthOf(target.calls, 1)
    assert.isTrue(signedWith(target.calls[0], oldSecret))
    const rotated = await client.post(`/api/v1/rules/${rule.body().id}/secret`).header('x-api-key', admin())
    const newSecret = rotated.body().callSecret
    target.answerWith((_request, response) => response.end('ok'))
    await receive(clock, SENDER, 'two')
    await engine.run()
    assert.lengthOf(target.calls, 2)
    assert.isTrue(signedWith(target.calls[1], newSecret))
    // The first call's retry, 30 seconds on: signed with the secret of now, as a webhook's is.
    await clock.advance(30_000)
    await engine.settle()
    assert.lengthOf(target.calls, 3)
    assert.equal(target.calls[2].headers['x-delivery-id'], target.calls[0].headers['x-delivery-id'])
    assert.isTrue(signedWith(target.calls[2], newSecret))
    assert.isFalse(signedWith(target.calls[2], oldSecret))
  })

  test('a rule whose URL changes sends the retries of its waiting calls there; a rule deleted or calling no URL drops them', async ({ client, assert }) => {
    const moved = await startReceiver()
    try {
      const rule = await createRule(client, { name: 'Hook', actions: [{ type: 'call_url', url: target.url }] })
      const secret = rule.body().callSecret
      target.answerWith(answerStatus(500))
      await receive(clock, SENDER, 'one')
      await engine.run()
      assert.lengthOf(target.calls, 1)
      const changed = await client.patch(`/api/v1/rules/${rule.body().id}`).header('x-api-key', admin()).json({ actions: [{ type: 'call_url', url: moved.url }] })
      changed.assertStatus(200)
      moved.answerWith(answerStatus(500))
      await clock.advance(30_000)
      await engine.settle()
      assert.lengthOf(target.calls, 1)
      assert.lengthOf(moved.calls, 1)
      assert.equal(moved.calls[0].headers['x-delivery-id'], target.calls[0].headers['x-delivery-id'])
      assert.isTrue(signedWith(moved.calls[0], secret))

      // Failing at its new URL too, then the rule stops calling a URL: the next retry is dropped.
      const beforeDrop = moved.calls.length
      ;(await client.patch(`/api/v1/rules/${rule.body().id}`).header('x-api-key', admin()).json({ actions: [{ type: 'add_tags', tags: ['hook'] }] })).assertStatus(200)
      await clock.advance(3_600_000)
      await engine.settle()
      assert.lengthOf(moved.calls, beforeDrop)
      const dropped = await db.from('webhook_deliveries').where('rule_id', String(rule.body().id)).first()
      assert.equal(dropped.status, 'failed')
      assert.equal(dropped.error, 'dropped: the rule was deleted or calls no URL any more')
      assert.isNull(dropped.due_at)

      // A deleted rule's waiting call is dropped the same way.
      const other = await createRule(client, { name: 'Other hook', actions: [{ type: 'call_url', url: moved.url }] })
      await receive(clock, '+33611111111', 'three')
      await engine.run()
      const calls = moved.calls.length
      ;(await client.delete(`/api/v1/rules/${other.body().id}`).header('x-api-key', admin())).assertStatus(204)
      await clock.advance(3_600_000)
      await engine.settle()
      assert.lengthOf(moved.calls, calls)
      const deleted = await db.from('webhook_deliveries').where('rule_id', String(other.body().id)).first()
      assert.containsSubset(deleted, { status: 'failed', error: 'dropped: the rule was deleted or calls no URL any more' })
    } finally {
      await moved.close()
    }
  })

  test('loop guard: at most N replies per number per 10 minutes, never to one of the gateway\u2019s own phones', async ({ client, assert }) => {
    await createRule(client, { name: 'Echo', actions: [{ type: 'reply', text: 'Got it' }] })
    for (let index = 0; index < 4; index++) {
      await receive(clock, SENDER, `message ${index}`)
      await engine.run()
      await clock.advance(60_000)
    }
    assert.lengthOf(await outbound(SENDER), 3)
    const [latest] = await runs(client)
    assert.equal(latest.actions[0].status, 'skipped')
    assert.include(latest.actions[0].detail, 'Reply limit reached')
    // Ten minutes after the first reply, one more is allowed.
    await clock.advance(7 * 60_000)
    await receive(clock, SENDER, 'again')
    await engine.run()
    assert.lengthOf(await outbound(SENDER), 4)

    // A number that is one of the paired phones' SIMs is never answered.
    const [device] = await db.table('devices').insert({ name: 'Own', credential_sealed: 'x', created_at: START, updated_at: START }).returning('id')
    await db.table('device_sims').insert({ device_id: device.id ?? device, slot: 0, number: '+33700000001' })
    await receive(clock, '+33700000001', 'ping')
    await engine.run()
    assert.lengthOf(await outbound('+33700000001'), 0)
    assert.include((await runs(client))[0].actions[0].detail, 'own phones')
    await db.from('devices').delete()
  })

  test('durable: an SMS stored while the rules were not running is run at the next start; a run resumed after a crash does not reply twice', async ({ client, assert }) => {
    await createRule(client, { name: 'Echo', actions: [{ type: 'reply', text: 'Got it' }, { type: 'add_tags', tags: ['x'] }] })
    // Stored with the job stopped (the gateway went down between storing and running).
    await engine.runner.stop()
    await receive(clock, SENDER, 'hello')
    assert.lengthOf(await runs(client), 0)
    await engine.runner.start()
    await engine.run()
    const [run] = await runs(client)
    assert.equal(run.status, 'done')
    assert.lengthOf(await outbound(SENDER), 1)

    // A crash after the reply was queued but before its outcome was written: the run is found
    // pending with no outcome on its reply; resuming queues nothing new.
    const row = await db.from('automation_rule_runs').where('id', run.id).first()
    const actions = JSON.parse(row.actions).map((action: any) => ({ ...action, outcome: undefined }))
    await db.from('automation_rule_runs').where('id', run.id).update({ status: 'pending', actions: JSON.stringify(actions), replies: 0, finished_at: null })
    await engine.run()
    assert.lengthOf(await outbound(SENDER), 1)
    const [resumed] = await runs(client)
    assert.containsSubset(resumed, { id: run.id, status: 'done' })
    assert.equal(resumed.actions[0].messageId, run.actions[0].messageId)
    assert.lengthOf(await runs(client), 1)
  })

  test('without a cursor (its row lost), rules start with what arrives next, never on the SMS received before', async ({ client, assert }) => {
    await createRule(client, { name: 'Tag', actions: [{ type: 'add_tags', tags: ['seen'] }] })
    await engine.runner.stop()
    await receive(clock, SENDER, 'old news')
    await db.from('automation_state').delete()
    await engine.runner.start()
    await engine.run()
    assert.lengthOf(await runs(client), 0)
    await receive(clock, '+33611111111', 'fresh')
    await engine.run()
    assert.deepEqual((await runs(client)).map((run) => run.maskedPhone), ['+33•••••••11'])
  })

  test('conditions on the receiving phone and SIM', async ({ client, assert }) => {
    const [device] = await db.table('devices').insert({ name: 'Shop', credential_sealed: 'x', created_at: START, updated_at: START }).returning('id')
    const deviceId = String(device.id ?? device)
    await createRule(client, { name: 'Shop SIM 2', conditions: [{ type: 'received_on', deviceId, simSlot: 1 }], actions: [{ type: 'add_tags', tags: ['shop'] }] })
    await receive(clock, SENDER, 'a', Number(deviceId), 0)
    await receive(clock, '+33611111111', 'b', Number(deviceId), 1)
    await engine.run()
    assert.deepEqual((await runs(client)).map((run) => run.maskedPhone), ['+33•••••••11'])
    await db.from('devices').delete()
  })
})
