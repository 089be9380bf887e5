import { definePages } from '../../page_registry'

export const pages = definePages([
  { name: 'accounts', path: 'accounts', title: 'Accounts', needs: 'listUsers', group: 'administration', order: 30, load: () => import('./AccountsPage.vue') },
])
