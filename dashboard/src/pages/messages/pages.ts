import { definePages } from '../../page_registry'

export const pages = definePages([
  { name: 'messages', path: 'messages', title: 'Messages', needs: 'listMessages', group: 'messaging', order: 10, load: () => import('./MessagesPage.vue') },
])
