import { defineConfig } from '@adonisjs/core/app'

export default defineConfig({
  commands: [() => import('@adonisjs/core/commands'), () => import('@adonisjs/lucid/commands')],

  providers: [
    () => import('@adonisjs/core/providers/app_provider'),
    { file: () => import('@adonisjs/core/providers/repl_provider'), environment: ['repl', 'test'] },
    () => import('@adonisjs/core/providers/vinejs_provider'),
    () => import('@adonisjs/core/providers/hash_provider'),
    () => import('@adonisjs/lucid/database_provider'),
    () => import('@adonisjs/session/session_provider'),
    () => import('@adonisjs/shield/shield_provider'),
    () => import('@adonisjs/auth/auth_provider'),
    () => import('@adonisjs/transmit/transmit_provider'),
    () => import('@adonisjs/limiter/limiter_provider'),
    () => import('@adonisjs/static/static_provider'),
    // Core first: modules build on its services (clock, jobs, settings, events, route contracts).
    () => import('#providers/core_provider'),
    () => import('#modules/auth/auth_provider'),
    () => import('#modules/license/license_provider'),
    // Before messages, which it builds on: the OpenAPI document lists a path's operations in
    // the order their routes are added, and the send (POST /api/v1/messages) comes first.
    () => import('#modules/sending/sending_provider'),
    () => import('#modules/messages/messages_provider'),
    // Right after messages, whose actions it offers over many: its routes follow that module's in the OpenAPI document.
    () => import('#modules/message_bulk/message_bulk_provider'),
    () => import('#modules/conversations/conversations_provider'),
    () => import('#modules/links/links_provider'),
    () => import('#modules/contacts/contacts_provider'),
    () => import('#modules/contact_imports/contact_imports_provider'),
    () => import('#modules/statistics/statistics_provider'),
    () => import('#modules/devices/devices_provider'),
    () => import('#modules/agent/agent_provider'),
    () => import('#modules/webhooks/webhooks_provider'),
    () => import('#modules/exports/exports_provider'),
    () => import('#modules/backups/backups_provider'),
    () => import('#modules/campaigns/campaigns_provider'),
    () => import('#modules/automation/automation_provider'),
    () => import('#modules/smsgate/smsgate_provider'),
  ],

  preloads: [() => import('#start/kernel'), () => import('#start/routes')],

  tests: {
    suites: [
      { files: ['tests/unit/**/*.spec(.ts|.js)'], name: 'unit', timeout: 10_000 },
      { files: ['tests/functional/**/*.spec(.ts|.js)'], name: 'functional', timeout: 30_000 },
      // The dashboard in Debian's Chromium against the in-process server (needs `npm run build:dashboard`).
      { files: ['tests/browser/**/*.spec(.ts|.js)'], name: 'browser', timeout: 60_000 },
    ],
    // The knex pool keeps a timer alive for a few seconds after the last test.
    forceExit: true,
  },

  // The dashboard's build (Vite writes it to public/ before `node ace build`, which empties build/).
  metaFiles: [{ pattern: 'public/**', reloadServer: false }],

  experimental: {
    // Providers stop in reverse order: modules and core stop their jobs before Lucid closes
    // the database they use.
    shutdownInReverseOrder: true,
  },
})
