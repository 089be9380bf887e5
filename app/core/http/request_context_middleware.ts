import { randomUUID } from 'node:crypto'
import type { HttpContext } from '@adonisjs/core/http'
import type { NextFn } from '@adonisjs/core/types/http'
import logger from '@adonisjs/core/services/logger'
import { redactText } from '#core/logging/redaction'

/** A caller-supplied id is kept only when it is short and plain, so it cannot forge log lines. */
const ACCEPTABLE_REQUEST_ID = /^[A-Za-z0-9._:-]{8,128}$/

/**
 * First on every request: fixes the request id, puts it on the answer (`X-Request-Id`, errors
 * included) and on every log line of the request, and logs one line when the answer is done.
 */
export default class RequestContextMiddleware {
  async handle(ctx: HttpContext, next: NextFn) {
    const startedAt = process.hrtime.bigint()
    const incoming = ctx.request.header('x-request-id')
    const requestId = incoming && ACCEPTABLE_REQUEST_ID.test(incoming) ? incoming : randomUUID()

    // request.id() reads this header; keep it in step with what we answer and log.
    ctx.request.request.headers['x-request-id'] = requestId
    // The framework made the context's child logger already, bound to the header as it came
    // (nothing when there was none): a second child for every request would cost as much again.
    if (incoming === undefined && ctx.logger.isEnabled) ctx.logger.pino.setBindings({ request_id: requestId })
    else if (incoming !== requestId) ctx.logger = logger.child({ request_id: requestId })
    ctx.response.header('X-Request-Id', requestId)

    ctx.response.response.once('finish', () => {
      const durationMs = Number(process.hrtime.bigint() - startedAt) / 1e6
      ctx.logger.info(
        { method: ctx.request.method(), status: ctx.response.response.statusCode, durationMs: Math.round(durationMs * 10) / 10 },
        `${ctx.request.method()} ${redactText(ctx.request.url(false))} ${ctx.response.response.statusCode}`
      )
    })

    return next()
  }
}
