import type { OperationId } from './api/operations'

/**
 * The pages of the signed-in dashboard, in menu order. A page is listed (and reachable) only
 * for the roles that may call the operation it reads (`needs`), from the gateway's own OpenAPI
 * document. Pages not built yet have no entry at all.
 */
export const pages = [
  { name: 'overview', path: '', title: 'Overview', needs: 'getCaller', load: () => import('./pages/overview/OverviewPage.vue') },
  // Messaging: messages, send, conversations, contacts

  // Phones
  { name: 'phones', path: 'phones', title: 'Phones', needs: 'listDevices', load: () => import('./pages/devices/PhonesPage.vue') },

  // Integrations: webhooks, API keys

  // Data: backups, exports
  { name: 'backups', path: 'backups', title: 'Backups', needs: 'listBackups', load: () => import('./pages/backups/BackupsPage.vue') },
  { name: 'exports', path: 'exports', title: 'Exports', needs: 'exportMessages', load: () => import('./pages/exports/ExportsPage.vue') },

  // Administration: settings, accounts, activity, technical log, license

  // Own account
] as const satisfies ReadonlyArray<{ name: string; path: string; title: string; needs: OperationId; load: () => Promise<unknown> }>

export type PageName = (typeof pages)[number]['name']
