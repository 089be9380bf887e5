import type { IncomingMessage } from 'node:http'

/**
 * A request's path with its repeated slashes made one (`/api/mobile/v1//device` is
 * `/api/mobile/v1/device`), the query left as it is. A client that joins a base address ending
 * in `/` to a path starting with one (the SMSGate app, given its API URL with a trailing slash)
 * reaches the same route; no route of the gateway has an empty path segment.
 */
export function collapseRepeatedSlashes(request: IncomingMessage): void {
  const url = request.url
  if (!url || !url.includes('//')) return
  const query = url.indexOf('?')
  const path = query < 0 ? url : url.slice(0, query)
  if (!path.includes('//')) return
  request.url = path.replace(/\/{2,}/g, '/') + (query < 0 ? '' : url.slice(query))
}
