import { definePages } from '../../page_registry'

export const pages = definePages([
  { name: 'conversations', path: 'conversations', title: 'Conversations', needs: 'listConversations', group: 'messaging', order: 30, load: () => import('./ConversationsPage.vue') },
])
