import { test } from '@japa/runner'
import { keywordRun } from '#modules/automation/services/rule_planner'

const reception = {
  localPrefix: null,
  optOutKeywordsEnabled: true,
  optOutKeywords: ['STOP', 'FIN'],
  optInKeywords: ['START'],
  optOutReply: 'Bye',
  optInReply: null,
  helpKeywords: ['HELP', 'Aide', 'FIN'],
  helpReply: 'Acme: reply STOP to opt out',
  autoReplyLimit: 3,
}

test.group('Built-in keywords: which one an SMS is', () => {
  test('a help keyword is the whole text, case, accents and final punctuation aside; its one action is the help reply, even to an opted-out number', ({ assert }) => {
    for (const text of ['HELP', ' help? ', 'Aidé !']) {
      const run = keywordRun(text, reception)
      assert.equal(run?.kind, 'keyword', text)
      assert.deepEqual(run?.actions, [{ type: 'reply', text: 'Acme: reply STOP to opt out', evenIfOptedOut: true }], text)
    }
    assert.equal(keywordRun('aide', reception)?.ruleName, 'Help keyword AIDE')
    assert.isNull(keywordRun('help me please', reception))
  })

  test('a word listed as opt-out and help is an opt-out', ({ assert }) => {
    assert.equal(keywordRun('fin', reception)?.ruleName, 'Opt-out keyword FIN')
  })

  test('no help reply or keywords off: HELP is no keyword', ({ assert }) => {
    assert.isNull(keywordRun('HELP', { ...reception, helpReply: null }))
    assert.isNull(keywordRun('HELP', { ...reception, optOutKeywordsEnabled: false }))
  })
})
