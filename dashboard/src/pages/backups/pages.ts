import { definePages } from '../../page_registry'

export const pages = definePages([
  { name: 'backups', path: 'backups', title: 'Backups', needs: 'listBackups', group: 'data', order: 10, load: () => import('./BackupsPage.vue') },
])
