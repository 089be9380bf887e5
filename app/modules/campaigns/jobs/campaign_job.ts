import type { JobDefinition } from '#core/jobs/job_runner'
import { JobWake } from '#core/jobs/job_wake'
import type { CampaignEngine } from '#modules/campaigns/services/campaign_engine'

export const CAMPAIGN_JOB = 'campaigns.engine'
/** Recipients' statuses are read back from the messages this often (a crash between a change and its event). */
export const RECONCILE_EVERY_MS = 60_000

/** Makes the campaign job due when a campaign changes (core's JobWake). */
export class CampaignWake extends JobWake {
  protected readonly job = CAMPAIGN_JOB
}

/**
 * Resolves launched audiences and materialises running campaigns; due about every second while
 * one runs. At the job's first pass after a start the campaigns still running are noted in the
 * Activity log, and recipients are read back from their messages then and every minute after.
 */
export function campaignJob(engine: () => Promise<CampaignEngine>, startedAt: Date): JobDefinition {
  let reconciledAt = Number.NEGATIVE_INFINITY
  let first = true
  return {
    name: CAMPAIGN_JOB,
    run: async (now) => {
      const campaigns = await engine()
      // The job is made once per process, at its start: what was running before then was
      // running when the gateway stopped (a campaign launched since is not announced).
      if (first) {
        first = false
        await campaigns.announceRestart(startedAt)
      }
      if (now.getTime() - reconciledAt >= RECONCILE_EVERY_MS) {
        await campaigns.reconcile()
        reconciledAt = now.getTime()
      }
      return campaigns.pass(now)
    },
  }
}
