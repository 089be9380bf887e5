import type { OperationId } from './api/operations'

/**
 * The pages of the signed-in dashboard, in menu order. A page is listed (and reachable) only
 * for the roles that may call the operation it reads (`needs`), from the gateway's own OpenAPI
 * document. Pages not built yet have no entry at all. `menu: false`: reached from another page
 * (a campaign from the list, the wizard from its button), not from the menu.
 */
export const pages = [
  { name: 'overview', path: '', title: 'Overview', needs: 'getCaller', load: () => import('./pages/overview/OverviewPage.vue') },
  { name: 'statistics', path: 'statistics', title: 'Statistics', needs: 'getMessageVolume', load: () => import('./pages/statistics/StatisticsPage.vue') },
  // Messaging: messages, send, conversations, contacts
  { name: 'messages', path: 'messages', title: 'Messages', needs: 'listMessages', load: () => import('./pages/messages/MessagesPage.vue') },
  { name: 'send', path: 'send', title: 'Send', needs: 'sendMessages', load: () => import('./pages/send/SendPage.vue') },
  { name: 'conversations', path: 'conversations', title: 'Conversations', needs: 'listConversations', load: () => import('./pages/conversations/ConversationsPage.vue') },
  { name: 'contacts', path: 'contacts', title: 'Contacts', needs: 'listContacts', load: () => import('./pages/contacts/ContactsPage.vue') },

  // Campaigns: campaigns
  { name: 'campaigns', path: 'campaigns', title: 'Campaigns', needs: 'listCampaigns', load: () => import('./pages/campaigns/CampaignsPage.vue') },
  { name: 'campaign-new', path: 'campaigns/new', title: 'New campaign', needs: 'createCampaign', menu: false, load: () => import('./pages/campaigns/CampaignWizard.vue') },
  { name: 'campaign', path: 'campaigns/:id', title: 'Campaign', needs: 'getCampaign', menu: false, load: () => import('./pages/campaigns/CampaignPage.vue') },

  // Campaigns: templates
  { name: 'templates', path: 'templates', title: 'Templates', needs: 'listTemplates', load: () => import('./pages/templates/TemplatesPage.vue') },
  { name: 'template', path: 'templates/:id', title: 'Template', needs: 'getTemplate', menu: false, load: () => import('./pages/templates/TemplateEditor.vue') },

  // Campaigns: contact groups
  { name: 'groups', path: 'groups', title: 'Groups', needs: 'listGroups', load: () => import('./pages/groups/GroupsPage.vue') },
  { name: 'group', path: 'groups/:id', title: 'Group', needs: 'getGroup', menu: false, load: () => import('./pages/groups/GroupPage.vue') },

  // Campaigns: contact import
  { name: 'contact-import', path: 'contacts/import', title: 'Import contacts', needs: 'uploadContactImport', menu: false, load: () => import('./pages/contact-import/ContactImportPage.vue') },

  // Automation: rules on incoming SMS
  { name: 'rules', path: 'rules', title: 'Rules', needs: 'listRules', load: () => import('./pages/rules/RulesPage.vue') },
  { name: 'rule', path: 'rules/:id', title: 'Rule', needs: 'getRule', menu: false, load: () => import('./pages/rules/RuleEditor.vue') },

  // Phones
  { name: 'phones', path: 'phones', title: 'Phones', needs: 'listDevices', load: () => import('./pages/devices/PhonesPage.vue') },

  // Integrations: webhooks, API keys
  { name: 'webhooks', path: 'webhooks', title: 'Webhooks', needs: 'listWebhooks', load: () => import('./pages/webhooks/WebhooksPage.vue') },
  { name: 'webhook-deliveries', path: 'webhooks/deliveries', title: 'Webhook deliveries', needs: 'listWebhookDeliveries', load: () => import('./pages/webhooks/DeliveriesPage.vue') },
  { name: 'api-keys', path: 'api-keys', title: 'API keys', needs: 'listApiKeys', load: () => import('./pages/api-keys/ApiKeysPage.vue') },

  // Data: backups, exports
  { name: 'backups', path: 'backups', title: 'Backups', needs: 'listBackups', load: () => import('./pages/backups/BackupsPage.vue') },
  { name: 'exports', path: 'exports', title: 'Exports', needs: 'exportMessages', load: () => import('./pages/exports/ExportsPage.vue') },

  // Administration: settings, accounts, activity, technical log, license
  { name: 'settings', path: 'settings/:section?', title: 'Settings', needs: 'getSettings', load: () => import('./pages/settings/SettingsPage.vue') },
  { name: 'license', path: 'license', title: 'License', needs: 'getLicense', load: () => import('./pages/license/LicensePage.vue') },
  { name: 'accounts', path: 'accounts', title: 'Accounts', needs: 'listUsers', load: () => import('./pages/accounts/AccountsPage.vue') },
  { name: 'activity', path: 'activity', title: 'Activity', needs: 'listActivity', load: () => import('./pages/activity/ActivityPage.vue') },
  { name: 'technical-log', path: 'technical-log', title: 'Technical log', needs: 'listTechnicalLog', load: () => import('./pages/technical-log/TechnicalLogPage.vue') },

  // Own account
  { name: 'account', path: 'account', title: 'Your account', needs: 'changeOwnPassword', load: () => import('./pages/account/AccountPage.vue') },
] as const satisfies ReadonlyArray<{ name: string; path: string; title: string; needs: OperationId; menu?: false; load: () => Promise<unknown> }>

export type PageName = (typeof pages)[number]['name']
