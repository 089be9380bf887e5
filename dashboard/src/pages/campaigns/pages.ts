import { definePages } from '../../page_registry'

export const pages = definePages([
  { name: 'campaigns', path: 'campaigns', title: 'Campaigns', needs: 'listCampaigns', group: 'messaging', order: 50, load: () => import('./CampaignsPage.vue') },
  { name: 'campaign-new', path: 'campaigns/new', title: 'New campaign', needs: 'createCampaign', group: 'messaging', order: 51, menu: false, load: () => import('./CampaignWizard.vue') },
  { name: 'campaign', path: 'campaigns/:id', title: 'Campaign', needs: 'getCampaign', group: 'messaging', order: 52, menu: false, load: () => import('./CampaignPage.vue') },
])
