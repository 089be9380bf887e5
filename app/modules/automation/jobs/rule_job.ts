import type { JobDefinition } from '#core/jobs/job_runner'
import type { RuleRunner } from '#modules/automation/services/rule_runner'

export const RULE_JOB = 'automation.rules'

/** Plans and carries out rule runs; woken by every inbound SMS, asleep otherwise. */
export function ruleJob(runner: () => Promise<RuleRunner>): JobDefinition {
  return { name: RULE_JOB, run: async () => (await runner()).pass() }
}
