import { definePages } from '../../page_registry'

export const pages = definePages([
  { name: 'technical-log', path: 'technical-log', title: 'Technical log', needs: 'listTechnicalLog', group: 'administration', order: 50, load: () => import('./TechnicalLogPage.vue') },
])
