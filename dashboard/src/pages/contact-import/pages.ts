import { definePages } from '../../page_registry'

export const pages = definePages([
  { name: 'contact-import', path: 'contacts/import', title: 'Import contacts', needs: 'uploadContactImport', group: 'messaging', order: 72, menu: false, load: () => import('./ContactImportPage.vue') },
])
