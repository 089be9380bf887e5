import { definePages } from '../../page_registry'

export const pages = definePages([
  { name: 'contacts', path: 'contacts', title: 'Contacts', needs: 'listContacts', group: 'messaging', order: 40, load: () => import('./ContactsPage.vue') },
])
