import { definePages } from '../../page_registry'

export const pages = definePages([
  { name: 'phones', path: 'phones', title: 'Phones', needs: 'listDevices', group: 'phones', order: 10, load: () => import('./PhonesPage.vue') },
])
