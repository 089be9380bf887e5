import app from '@adonisjs/core/services/app'
import db from '@adonisjs/lucid/services/db'
import type { ApiClient } from '@japa/api-client'
import type { ManualClock } from '#core/time/clock'
import { SettingsStore } from '#core/settings/settings_store'
import { MessageLedger } from '#modules/messages/public'
import { RuleRunner } from '#modules/automation/services/rule_runner'
import { RULE_JOB, ruleJob } from '#modules/automation/jobs/rule_job'
import { useWebhookEngine } from '#tests/helpers/webhooks'
import { testKeys } from '#tests/helpers/callers'

export const KEYWORD_DEFAULTS = {
  optOutKeywordsEnabled: true,
  optOutKeywords: ['STOP', 'STOPALL', 'UNSUBSCRIBE', 'CANCEL', 'END', 'QUIT'],
  optInKeywords: ['START', 'UNSTOP'],
  optOutReply: null,
  optInReply: null,
  autoReplyLimit: 3,
  helpKeywords: ['HELP'],
  helpReply: null,
}

/** Empties the rules and their runs; the cursor stays where it is (message ids only grow). */
export async function clearAutomation() {
  await db.from('automation_rule_runs').delete()
  await db.from('automation_rules').delete()
  await (await app.container.make(SettingsStore)).update({ reception: { localPrefix: null, ...KEYWORD_DEFAULTS } })
}

/**
 * The webhook engine (rule calls leave through it) and the rules' job on one runner driven by
 * the test's clock, in the container, so inbound SMS wake this one.
 */
export async function useRuleEngine(clock: ManualClock) {
  const engine = await useWebhookEngine(clock)
  engine.runner.register(ruleJob(() => app.container.make(RuleRunner)))
  return {
    ...engine,
    /** Runs due rule passes and lets their calls leave. */
    async run() {
      engine.runner.wake(RULE_JOB)
      await engine.settle()
    },
  }
}

let ref = 0

/** An SMS a phone received, stored as the devices module stores it. */
export async function receive(clock: ManualClock, phone: string, body: string, deviceId = 1, simSlot = 0) {
  const ledger = await app.container.make(MessageLedger)
  const stored = await ledger.storeInbound({ deviceId, ref: `test-${++ref}-${Date.now()}`, phone, body, simSlot, receivedAt: clock.now(), at: clock.now() })
  return stored!
}

export function createRule(client: ApiClient, rule: Record<string, unknown>, key = testKeys.admin) {
  return client.post('/api/v1/rules').header('x-api-key', key).json(rule)
}

export async function runs(client: ApiClient, query: Record<string, string> = {}) {
  return (await client.get('/api/v1/rules/runs').qs(query).header('x-api-key', testKeys.read)).body().data as any[]
}

export async function outbound(phone: string) {
  return db.from('messages').where('direction', 'out').where('phone', phone).orderBy('id', 'asc')
}
