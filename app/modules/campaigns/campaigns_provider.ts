import type { ApplicationService } from '@adonisjs/core/types'
import { Clock } from '#core/time/clock'
import { JobRunner } from '#core/jobs/job_runner'
import { RouteRegistry } from '#core/contract/route_registry'
import { registerVocabulary } from '#core/contract/module_vocabulary'
import { campaignActivity } from '#modules/campaigns/activity'
import { campaignEvents } from '#modules/campaigns/events'
import { campaignErrors } from '#modules/campaigns/errors'
import { campaignSettings } from '#modules/campaigns/settings'
import { campaignPermissions } from '#modules/campaigns/permissions'
import { campaignsModuleRoutes } from '#modules/campaigns/routes'
import { CampaignBook } from '#modules/campaigns/services/campaign_book'
import { CampaignEngine } from '#modules/campaigns/services/campaign_engine'
import { CampaignWake, campaignJob } from '#modules/campaigns/jobs/campaign_job'
import { LiveCampaigns } from '#modules/campaigns/listeners/live_campaigns'
import { followMessageChanges, RecipientStatusFollower } from '#modules/campaigns/listeners/recipient_statuses'

/**
 * Campaigns and message templates (bulk sending). Contacts and their groups belong to the
 * contacts module, messages to the messages module: a campaign reads its audience through the
 * first's public services and queues its messages through the second's (docs/modules.md,
 * docs/campaigns.md).
 */
export default class CampaignsProvider {
  constructor(protected app: ApplicationService) {}

  register() {
    registerVocabulary({ events: campaignEvents, permissions: campaignPermissions, errors: campaignErrors, settings: campaignSettings, activity: campaignActivity })
    const { container } = this.app
    container.singleton(LiveCampaigns, async (resolver) => {
      const clock = await resolver.make(Clock)
      return new LiveCampaigns(
        () => container.make('transmit'),
        () => container.make(CampaignBook),
        async () => clock
      )
    })
    // Recipients follow their messages' changes (stopped and started again by restart tests).
    container.singleton(RecipientStatusFollower, async (resolver) => {
      const [emitter, live, clock, wake] = await Promise.all([resolver.make('emitter'), resolver.make(LiveCampaigns), resolver.make(Clock), resolver.make(CampaignWake)])
      return new RecipientStatusFollower(() =>
        followMessageChanges(
          emitter as any,
          async () => clock.now(),
          (campaignIds) => {
            for (const id of campaignIds) live.changed(id, false)
            wake.wake()
          }
        )
      )
    })
    // Jobs run with the HTTP server only; the runner is resolved at each wake (tests swap it).
    container.singleton(CampaignWake, () => new CampaignWake(() => container.make(JobRunner)))
  }

  async start() {
    const { container } = this.app
    const registry = await container.make(RouteRegistry)
    registry.add(campaignsModuleRoutes(registry))
    const runner = await container.make(JobRunner)
    runner.register(campaignJob(() => container.make(CampaignEngine), (await container.make(Clock)).now()))
    ;(await container.make(RecipientStatusFollower)).start()
    // A send window or night pause changed: held campaigns look at it now, not at their old opening.
    const emitter = await container.make('emitter')
    const wake = await container.make(CampaignWake)
    emitter.on('settings:changed', ({ sections }) => {
      if (sections.includes('sending')) wake.wake()
    })
  }

  async shutdown() {
    ;(await this.app.container.make(RecipientStatusFollower)).stop()
    ;(await this.app.container.make(LiveCampaigns)).stop()
  }
}
