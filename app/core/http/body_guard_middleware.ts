import type { HttpContext } from '@adonisjs/core/http'
import type { NextFn } from '@adonisjs/core/types/http'
import { ApiError } from '#core/http/api_error'
import { isLingering } from '#core/http/lingering_close'

/** A request body is capped at 2 MiB (docs/api-conventions.md, Errors). */
export const MAX_BODY_BYTES = 2 * 1024 * 1024

const JSON_TYPES = ['application/json', 'application/*+json']

/** Upload routes (a CSV of contacts) and the larger body each takes, registered at mount. */
const uploads: Array<{ method: string; pattern: RegExp; maxBytes: number }> = []

/** Lets a route's body be larger than the JSON cap (its own route middleware checks the type). */
export function allowUpload(method: string, path: string, maxBytes: number) {
  const pattern = new RegExp(`^${path.replace(/:[^/]+/g, '[^/]+')}/?$`)
  uploads.push({ method, pattern, maxBytes })
}

/** The largest body the request may declare: an upload route's own, else the JSON cap. */
function bodyCapOf(ctx: HttpContext): number {
  const path = ctx.request.url()
  const upload = uploads.find((entry) => entry.method === ctx.request.method() && entry.pattern.test(path))
  return upload?.maxBytes ?? MAX_BODY_BYTES
}

/**
 * Server middleware, before any body is read and before routing: a declared length over the
 * cap is refused at once and the body is never read. A chunked body without a declared length
 * is capped by the body parser while it streams.
 */
export default class BodyGuardMiddleware {
  async handle(ctx: HttpContext, next: NextFn) {
    // A request that came on a connection closing after a refused body (a chunked body is read
    // away to its end, and what follows it is parsed): its answer can never be read, so it is not
    // carried out, or a send would go out while its caller, unanswered, sends it again.
    if (isLingering(ctx.request.request.socket)) {
      throw ApiError.validation('body', 'connection', 'Not served: sent on a connection closing after a refused body; send it again on a new one')
    }
    const declared = ctx.request.header('content-length')
    const cap = declared === undefined ? MAX_BODY_BYTES : bodyCapOf(ctx)
    if (declared !== undefined && Number(declared) > cap) {
      // The exception handler closes the connection after the answer (lingering_close.ts).
      throw new ApiError('PAYLOAD_TOO_LARGE', `The request body is over ${readableBytes(cap)}`, { limitBytes: cap })
    }
    return next()
  }
}

/**
 * Route middleware, just before the body parser: the API speaks JSON only, so a body of
 * another type is refused instead of being half-parsed (curl -d sends a form by default).
 */
export async function requireJsonBody(ctx: HttpContext, next: NextFn) {
  const declared = Number(ctx.request.header('content-length') ?? 0)
  const chunked = ctx.request.header('transfer-encoding') !== undefined
  if (!(declared > 0 || chunked)) return next()
  if (!ctx.request.is(JSON_TYPES)) {
    throw new ApiError('UNSUPPORTED_MEDIA_TYPE', 'Send the body as JSON with Content-Type: application/json', {
      expected: 'application/json',
    })
  }
  // A compressed body could expand far past the 2 MiB cap from a small upload: not accepted.
  const encoding = ctx.request.header('content-encoding')
  if (encoding !== undefined && encoding.trim().toLowerCase() !== 'identity') {
    throw new ApiError('UNSUPPORTED_MEDIA_TYPE', 'Send the body uncompressed: Content-Encoding is not supported', {
      expected: 'identity',
    })
  }
  return next()
}

/**
 * Route middleware of an upload route, before the body parser: the body must be
 * multipart/form-data (the file is then streamed by the controller, never held in memory).
 */
export async function requireMultipartBody(ctx: HttpContext, next: NextFn) {
  if (!ctx.request.is(['multipart/form-data'])) {
    throw new ApiError('UNSUPPORTED_MEDIA_TYPE', 'Send the file as multipart/form-data', { expected: 'multipart/form-data' })
  }
  return next()
}

/** A cap as a person reads it: whole MiB (an upload's cap adds a little room for its multipart frame). */
function readableBytes(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${Math.floor(bytes / (1024 * 1024))} MiB` : `${bytes} bytes`
}
