import { definePages } from '../../page_registry'

export const pages = definePages([
  { name: 'exports', path: 'exports', title: 'Exports', needs: 'exportMessages', group: 'data', order: 20, load: () => import('./ExportsPage.vue') },
])
