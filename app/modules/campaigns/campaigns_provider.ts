import type { ApplicationService } from '@adonisjs/core/types'
import { registerVocabulary } from '#core/contract/module_vocabulary'
import { campaignEvents } from '#modules/campaigns/events'

/**
 * Campaigns, contact groups and templates (bulk sending). For now the module brings only its
 * public event, so a webhook can subscribe to `campaign.completed` as the spec's catalogue says;
 * its routes, jobs and tables come with the module itself (docs/modules.md walks through them).
 */
export default class CampaignsProvider {
  constructor(protected app: ApplicationService) {}

  register() {
    registerVocabulary({ events: campaignEvents })
  }
}
