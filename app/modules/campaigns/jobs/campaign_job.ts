import type { JobDefinition } from '#core/jobs/job_runner'
import { RECONCILE_EVERY_MS, type CampaignEngine } from '#modules/campaigns/services/campaign_engine'

export const CAMPAIGN_JOB = 'campaigns.engine'

/**
 * Resolves launched audiences and materialises running campaigns; due about every second while
 * one runs. Recipients are read back from their messages at the job's first pass (a restart) and
 * every minute after.
 */
export function campaignJob(engine: () => Promise<CampaignEngine>): JobDefinition {
  let reconciledAt = Number.NEGATIVE_INFINITY
  return {
    name: CAMPAIGN_JOB,
    run: async (now) => {
      const campaigns = await engine()
      if (now.getTime() - reconciledAt >= RECONCILE_EVERY_MS) {
        await campaigns.reconcile()
        reconciledAt = now.getTime()
      }
      return campaigns.pass(now)
    },
  }
}
