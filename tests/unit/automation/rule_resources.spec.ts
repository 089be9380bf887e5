import { test } from '@japa/runner'
import AutomationRule from '#modules/automation/models/automation_rule'
import RuleRun from '#modules/automation/models/rule_run'
import { ruleResource } from '#modules/automation/services/rule_book'
import { runResource } from '#modules/automation/services/rule_run_log'

const rule = {
  id: 4,
  name: 'Opening hours',
  enabled: 1,
  position: 2,
  stop_after: 0,
  conditions: JSON.stringify([{ type: 'text', match: 'contains', value: 'hours' }]),
  actions: JSON.stringify([{ type: 'call_url', url: 'https://example.org/hook' }]),
  call_secret_sealed: 'sealed',
  created_at: '2026-11-25T08:00:00.123Z',
  updated_at: '2026-11-25T09:00:00.000Z',
}
const run = {
  id: 9,
  rule_id: 4,
  rule_name: 'Opening hours',
  kind: 'rule',
  message_id: 31,
  conversation_id: 7,
  phone: '+33612345678',
  device_id: '2',
  sim_slot: 1,
  status: 'done',
  actions: JSON.stringify([{ type: 'reply', text: 'Open 9-17', outcome: { status: 'done', detail: null, messageId: '32' } }, { type: 'tag' }]),
  replies: 1,
  created_at: '2026-11-25T08:00:00.123Z',
  finished_at: '2026-11-25T08:00:01.000Z',
}

test.group('Rule and rule-run resources', () => {
  test('a rule answers what its serialised model and callsUrl gave, in the same order, with or without its new secret', ({ assert }) => {
    const model = AutomationRule.$createFromAdapterResult(rule)!
    const before = { ...model.serialize(), callsUrl: true }
    assert.equal(JSON.stringify(ruleResource(model)), JSON.stringify(before))
    assert.equal(JSON.stringify(ruleResource(model, 'rsec_x')), JSON.stringify({ ...before, callSecret: 'rsec_x' }))
  })

  test('a run answers what its serialised model gave, actions as outcomes, the number masked last', ({ assert }) => {
    for (const row of [run, { ...run, rule_id: null, kind: 'keyword', device_id: null, sim_slot: null, status: 'pending', finished_at: null }]) {
      const model = RuleRun.$createFromAdapterResult(row)!
      const answered = runResource(model)
      const serialised = model.serialize()
      assert.deepEqual(Object.keys(answered), [...Object.keys(serialised), 'maskedPhone'])
      assert.equal(JSON.stringify({ ...answered, actions: serialised.actions }), JSON.stringify({ ...serialised, maskedPhone: answered.maskedPhone }))
      assert.notInclude(answered.maskedPhone, '612345678')
      assert.deepEqual(answered.actions[1], { type: 'tag', status: 'pending', detail: null, messageId: null })
    }
  })
})
