import { definePages } from '../../page_registry'

export const pages = definePages([
  { name: 'api-keys', path: 'api-keys', title: 'API keys', needs: 'listApiKeys', group: 'integrations', order: 30, load: () => import('./ApiKeysPage.vue') },
])
