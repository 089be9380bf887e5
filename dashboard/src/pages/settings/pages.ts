import { definePages } from '../../page_registry'

export const pages = definePages([
  { name: 'settings', path: 'settings/:section?', title: 'Settings', needs: 'getSettings', group: 'administration', order: 10, load: () => import('./SettingsPage.vue') },
])
