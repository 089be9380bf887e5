import { definePages } from '../../page_registry'

export const pages = definePages([
  { name: 'overview', path: '', title: 'Overview', needs: 'getCaller', group: 'overview', order: 10, load: () => import('./OverviewPage.vue') },
])
