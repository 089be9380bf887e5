import vine from '@vinejs/vine'
import type { HttpContext } from '@adonisjs/core/http'
import type { NextFn } from '@adonisjs/core/types/http'
import { illFormedTextPath } from '#core/contract/well_formed_text'
import { ApiError } from '#core/http/api_error'

/** The stream id a browser picks (transmit-client draws a UUID). */
const uid = () => vine.string().regex(/^[A-Za-z0-9_-]{1,128}$/)
/** Channel names are ours (`notices`, later `campaigns/42`). */
const channel = () => vine.string().minLength(1).maxLength(200)

const streamInput = vine.compile(vine.object({ uid: uid() }))
const subscriptionInput = vine.compile(vine.object({ uid: uid(), channel: channel() }))

/**
 * Route middleware for transmit's own routes (/__transmit/events, /subscribe, /unsubscribe),
 * after the body parser. Their controllers read `uid` and `channel` from the request as they
 * come and throw on a missing or odd one (a 500), so they are checked here first, from the same
 * place the controllers read them (query string and body together), and refused as 400.
 */
export async function checkLiveStreamInput(ctx: HttpContext, next: NextFn) {
  const input = ctx.request.all()
  if (illFormedTextPath(input) !== null) {
    throw ApiError.validation('body', 'unicode', 'Text must be valid Unicode: a lone UTF-16 surrogate is not accepted')
  }
  await (ctx.request.method() === 'GET' ? streamInput : subscriptionInput).validate(input)
  return next()
}

/**
 * Transmit's subscribe route answers a channel the account may not follow with a bare 400 and
 * no body (its only refusal: authorisation). Said in the error format instead, as every refusal.
 */
export async function explainRefusedSubscription(ctx: HttpContext, next: NextFn) {
  await next()
  if (ctx.request.method() === 'POST' && ctx.request.url().endsWith('/subscribe') && ctx.response.getStatus() === 400 && ctx.response.getBody() === undefined) {
    throw new ApiError('FORBIDDEN_SCOPE', 'This account may not follow this live channel', { field: 'channel' })
  }
}
