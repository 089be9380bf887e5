import type { HttpContext } from '@adonisjs/core/http'
import type { NextFn } from '@adonisjs/core/types/http'
import { ApiError } from '#core/http/api_error'

/** Spec, Limits > Requests: a request body is capped at 2 MiB. */
export const MAX_BODY_BYTES = 2 * 1024 * 1024

const JSON_TYPES = ['application/json', 'application/*+json']

/**
 * Server middleware, before any body is read and before routing: a declared length over the
 * cap is refused at once and the body is never read. A chunked body without a declared length
 * is capped by the body parser while it streams.
 */
export default class BodyGuardMiddleware {
  async handle(ctx: HttpContext, next: NextFn) {
    const declared = ctx.request.header('content-length')
    if (declared !== undefined && Number(declared) > MAX_BODY_BYTES) {
      // The unread remainder must not be parsed as a next request on this connection.
      ctx.response.header('Connection', 'close')
      throw new ApiError('PAYLOAD_TOO_LARGE', 'The request body is over 2 MiB', { limitBytes: MAX_BODY_BYTES })
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
