import { definePages } from '../../page_registry'

export const pages = definePages([
  { name: 'statistics', path: 'statistics', title: 'Statistics', needs: 'getMessageVolume', group: 'overview', order: 20, load: () => import('./StatisticsPage.vue') },
])
