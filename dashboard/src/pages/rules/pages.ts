import { definePages } from '../../page_registry'

export const pages = definePages([
  { name: 'rules', path: 'rules', title: 'Rules', needs: 'listRules', group: 'messaging', order: 80, load: () => import('./RulesPage.vue') },
  { name: 'rule', path: 'rules/:id', title: 'Rule', needs: 'getRule', group: 'messaging', order: 81, menu: false, load: () => import('./RuleEditor.vue') },
])
