import type { HttpContext } from '@adonisjs/core/http'
import type { NextFn } from '@adonisjs/core/types/http'
import { ApiError } from '#core/http/api_error'
import { MAX_BODY_BYTES } from '#core/http/body_guard_middleware'

declare module '@adonisjs/core/http' {
  interface HttpContext {
    /** The body's bytes exactly as sent, on a route whose contract keeps them (`rawBody`). */
    rawBody?: Buffer
  }
}

const strictJson = /^[\x20\x09\x0a\x0d]*[[{]/

/**
 * Route middleware in place of the body parser on a route whose contract sets `rawBody` (a
 * signed webhook: the signature covers the bytes as sent, which a parsed and re-serialised body
 * would not give back). Reads the body once, capped like any JSON body, keeps its bytes on
 * `ctx.rawBody`, and parses it as the body parser would: JSON objects and arrays only, UTF-8.
 */
export async function readRawJsonBody(ctx: HttpContext, next: NextFn) {
  const chunks: Buffer[] = []
  let size = 0
  // Not destroyed when the cap stops the loop: a request destroyed mid-body takes its socket with
  // it, and the client would get a reset instead of the 413 (lingering_close.ts).
  for await (const chunk of ctx.request.request.iterator({ destroyOnReturn: false })) {
    size += (chunk as Buffer).length
    if (size > MAX_BODY_BYTES) {
      throw new ApiError('PAYLOAD_TOO_LARGE', 'The request body is over 2 MiB', { limitBytes: MAX_BODY_BYTES })
    }
    chunks.push(chunk as Buffer)
  }
  const bytes = Buffer.concat(chunks)
  ctx.rawBody = bytes
  let text: string
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes)
  } catch {
    throw ApiError.validation('body', 'utf8', 'The body is not valid UTF-8')
  }
  let parsed: Record<string, any> = {}
  if (text.trim() !== '') {
    if (!strictJson.test(text)) throw ApiError.validation('body', 'object', 'The body must be a JSON object')
    try {
      parsed = JSON.parse(text)
    } catch {
      throw ApiError.validation('body', 'json', 'The body is not valid JSON')
    }
  }
  ctx.request.setInitialBody(parsed)
  ctx.request.updateRawBody(text)
  return next()
}
