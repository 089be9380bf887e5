import { definePages } from '../../page_registry'

export const pages = definePages([
  { name: 'templates', path: 'templates', title: 'Templates', needs: 'listTemplates', group: 'messaging', order: 60, load: () => import('./TemplatesPage.vue') },
  { name: 'template', path: 'templates/:id', title: 'Template', needs: 'getTemplate', group: 'messaging', order: 61, menu: false, load: () => import('./TemplateEditor.vue') },
])
