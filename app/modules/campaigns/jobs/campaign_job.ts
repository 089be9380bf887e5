import type { JobDefinition } from '#core/jobs/job_runner'
import type { CampaignEngine } from '#modules/campaigns/services/campaign_engine'

export const CAMPAIGN_JOB = 'campaigns.engine'

/** Resolves launched audiences and materialises running campaigns; due about every second while one runs. */
export function campaignJob(engine: () => Promise<CampaignEngine>): JobDefinition {
  return { name: CAMPAIGN_JOB, run: async (now) => (await engine()).pass(now) }
}
