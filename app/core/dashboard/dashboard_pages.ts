import { readFile } from 'node:fs/promises'
import type { HttpContext } from '@adonisjs/core/http'
import type { NextFn } from '@adonisjs/core/types/http'
import app from '@adonisjs/core/services/app'
import router from '@adonisjs/core/services/router'
import { ApiError } from '#core/http/api_error'

/** Hashed by Vite: a new build gives new names, so a year of caching never serves a stale file. */
export const HASHED_ASSETS_FOLDER = 'assets'

/**
 * Cache headers for files of the dashboard's build: hashed assets are immutable, everything else
 * (index.html above all, which names the current assets) is checked again on every load.
 */
export function dashboardCacheHeaders(path: string): Record<string, string> {
  const relative = path.slice(app.publicPath().length).replaceAll('\\', '/')
  return relative.startsWith(`/${HASHED_ASSETS_FOLDER}/`)
    ? { 'Cache-Control': 'public, max-age=31536000, immutable' }
    : { 'Cache-Control': 'no-cache' }
}

/**
 * First path segments the router uses (`api`, `api-docs`, `health`, `l`, `__transmit`, ...): an
 * unknown path under one of them keeps the API's JSON 404 instead of becoming a dashboard page.
 * Read from the router itself, so a module's new top-level route is covered without a list here.
 */
function reservedSegments(): Set<string> {
  const segments = new Set<string>()
  for (const routes of Object.values(router.toJSON())) {
    for (const route of routes) segments.add(route.pattern.split('/')[1] ?? '')
  }
  return segments
}

let reserved: Set<string> | undefined

/** Whether a path belongs to the dashboard (its files and pages), not to one of the gateway's routes. */
export function isDashboardPath(path: string): boolean {
  reserved ??= reservedSegments()
  return !reserved.has(path.split('/')[1] ?? '')
}

/**
 * History-mode fallback of the dashboard: a GET for one of its pages (`/messages` after a
 * reload) answers index.html, and the app's router shows the page. Runs after the static files
 * middleware, so an existing file is served as itself; a path with a file extension, a route of
 * the gateway and any path under a route's first segment go on to the router (and its 404).
 */
export default class DashboardPagesMiddleware {
  async handle(ctx: HttpContext, next: NextFn) {
    const method = ctx.request.method()
    if (method !== 'GET' && method !== 'HEAD') return next()
    const path = ctx.request.url(false)
    const lastSegment = path.slice(path.lastIndexOf('/') + 1)
    if (!isDashboardPath(path) || lastSegment.includes('.') || router.match(path, method)) return next()

    let page: string
    try {
      page = await readFile(app.publicPath('index.html'), 'utf8')
    } catch {
      throw new ApiError('DASHBOARD_NOT_BUILT', 'The dashboard is not built: run `npm run build`, then start the gateway again')
    }
    ctx.response.header('Cache-Control', 'no-cache')
    ctx.response.header('Content-Type', 'text/html; charset=utf-8')
    return ctx.response.send(page)
  }
}
