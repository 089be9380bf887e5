import { definePages } from '../../page_registry'

export const pages = definePages([
  { name: 'license', path: 'license', title: 'License', needs: 'getLicense', group: 'administration', order: 20, load: () => import('./LicensePage.vue') },
])
