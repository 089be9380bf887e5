import type { HttpContext } from '@adonisjs/core/http'
import type { NextFn } from '@adonisjs/core/types/http'
import { ApiError } from '#core/http/api_error'
import type { JsonSchema } from '#core/contract/route_contract'

/**
 * Route middleware after the body parser: a route's JSON body is an object unless its schema says
 * a list (the SMSGate app's reports are one). The body parser lets a top-level array through (it
 * refuses `null` and bare values itself, answered the same way by the exception handler), which
 * the validators would report as a field with no name, and a route without a body would take in
 * silence.
 */
export function requireObjectBody(schema: JsonSchema) {
  const takesList = schema.type === 'array'
  return async (ctx: HttpContext, next: NextFn) => {
    if (!takesList && Array.isArray(ctx.request.body())) throw ApiError.validation('body', 'object', 'The body must be a JSON object')
    return next()
  }
}
