import { defineConfig } from '@adonisjs/transmit'

/**
 * Live notices to signed-in dashboards over Server-Sent Events (app/core/notifications).
 * One process, so no transport; a ping keeps idle streams open through proxies.
 */
export default defineConfig({
  pingInterval: '30s',
  transport: null,
})
