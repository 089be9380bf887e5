import { definePages } from '../../page_registry'

export const pages = definePages([
  { name: 'send', path: 'send', title: 'Send', needs: 'sendMessages', group: 'messaging', order: 20, load: () => import('./SendPage.vue') },
])
