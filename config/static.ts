import { defineConfig } from '@adonisjs/static'
import { dashboardCacheHeaders } from '#core/dashboard/dashboard_pages'

/**
 * The dashboard's build (public/, written by `npm run build`), served at `/`. Cache-Control is
 * set per file (immutable hashed assets, no-cache for index.html), not by serve-static's maxAge.
 */
const staticServerConfig = defineConfig({
  enabled: true,
  etag: true,
  lastModified: true,
  dotFiles: 'ignore',
  cacheControl: false,
  headers: (path) => dashboardCacheHeaders(path),
})

export default staticServerConfig
