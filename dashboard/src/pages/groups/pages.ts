import { definePages } from '../../page_registry'

export const pages = definePages([
  { name: 'groups', path: 'groups', title: 'Groups', needs: 'listGroups', group: 'messaging', order: 70, load: () => import('./GroupsPage.vue') },
  { name: 'group', path: 'groups/:id', title: 'Group', needs: 'getGroup', group: 'messaging', order: 71, menu: false, load: () => import('./GroupPage.vue') },
])
