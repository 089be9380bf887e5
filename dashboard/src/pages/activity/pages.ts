import { definePages } from '../../page_registry'

export const pages = definePages([
  { name: 'activity', path: 'activity', title: 'Activity', needs: 'listActivity', group: 'administration', order: 40, load: () => import('./ActivityPage.vue') },
])
