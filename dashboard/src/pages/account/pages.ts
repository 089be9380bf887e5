import { definePages } from '../../page_registry'

export const pages = definePages([
  { name: 'account', path: 'account', title: 'Your account', needs: 'changeOwnPassword', group: 'administration', order: 90, load: () => import('./AccountPage.vue') },
])
