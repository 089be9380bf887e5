import { errors as vineErrors } from '@vinejs/vine'
import { ExceptionHandler, type HttpContext } from '@adonisjs/core/http'
import { ApiError, errorCatalogue, type ApiErrorKind, type ErrorDetails } from '#core/http/api_error'
import { logSafeError } from '#core/logging/redaction'
import { databaseRefusal } from '#core/database/database_refusal'
import { closeAfterRefusedBody } from '#core/http/lingering_close'

/** Retry-After of a write refused on a full disk: freeing space is an operator's job. */
export const STORAGE_FULL_RETRY_AFTER_S = 60
/** Retry-After of a write refused behind another program's lock (it waited 5 s already). */
export const DATABASE_BUSY_RETRY_AFTER_S = 5

interface ErrorAnswer {
  status: number
  code: string
  message: string
  details?: ErrorDetails
  headers?: Record<string, string>
}

/**
 * Turns every failure into the error object `{error: {code, message, details?, requestId}}`
 * (docs/api-conventions.md, Errors). Messages are our own fixed texts: a framework or parser
 * message can quote the request (JSON.parse quotes the body it choked on), so none is passed
 * through.
 */
export default class HttpExceptionHandler extends ExceptionHandler {
  protected debug = false
  protected renderStatusPages = false

  async handle(error: unknown, ctx: HttpContext) {
    const answer = toErrorAnswer(error, isReadingBody(ctx))
    for (const [name, value] of Object.entries(answer.headers ?? {})) ctx.response.header(name, value)
    // A body over the cap, refused before it was all read: the client, often still sending, must
    // read this answer before the connection closes (docs/api-conventions.md, Errors).
    if (answer.status === 413) closeAfterRefusedBody(ctx.request.request, (name, value) => ctx.response.header(name, value))
    ctx.response.status(answer.status).json({
      error: {
        code: answer.code,
        message: answer.message,
        ...(answer.details === undefined ? {} : { details: answer.details }),
        requestId: ctx.request.id(),
      },
    })
  }

  async report(error: unknown, ctx: HttpContext) {
    const answer = toErrorAnswer(error, isReadingBody(ctx))
    if (databaseRefusal(error)) {
      // Said once per episode by StorageHealth, not once per refused request (the log is on
      // the same full disk).
      return
    }
    if (answer.status >= 500) {
      // The full error stays in our own log (never in the answer); it is redacted there.
      ctx.logger.error({ err: logSafeError(error) }, 'unexpected error while answering a request')
    } else {
      ctx.logger.debug({ code: answer.code, status: answer.status }, answer.message)
    }
  }
}

function isReadingBody(ctx: HttpContext): boolean {
  return ctx.request.hasBody() && ctx.request.raw() === null
}

function answerFor(kind: ApiErrorKind, message: string, details?: ErrorDetails): ErrorAnswer {
  const { status, code } = errorCatalogue.get(kind)
  return { status, code, message, details }
}

/**
 * `bodyBeingRead`: the failure happened while the body parser was still turning the body into
 * data (the framework clones it recursively, so absurd nesting overflows the stack there).
 */
export function toErrorAnswer(error: unknown, bodyBeingRead = false): ErrorAnswer {
  if (error instanceof ApiError) {
    return { status: error.status, code: error.code, message: error.message, details: error.details, headers: error.headers }
  }
  if (error instanceof vineErrors.E_VALIDATION_ERROR) {
    const details = (error.messages as Array<{ field: string; rule: string; message: string }>).map(
      ({ field, rule, message }) => ({ field, rule, message })
    )
    const first = details[0]
    return answerFor('VALIDATION_ERROR', first ? first.message : 'The request is not valid', details)
  }

  switch (databaseRefusal(error)) {
    case 'full':
      return { ...answerFor('STORAGE_FULL', "The data folder's disk is full: nothing was written; try again once space is freed"), headers: { 'Retry-After': String(STORAGE_FULL_RETRY_AFTER_S) } }
    case 'locked':
      return { ...answerFor('DATABASE_BUSY', 'Another program holds the database: nothing was written; try again shortly'), headers: { 'Retry-After': String(DATABASE_BUSY_RETRY_AFTER_S) } }
  }

  const code = (error as { code?: string })?.code
  const status = (error as { status?: number })?.status
  switch (code) {
    case 'E_ROUTE_NOT_FOUND':
      return answerFor('NOT_FOUND', 'No route answers this method and path')
    case 'E_REQUEST_ENTITY_TOO_LARGE':
      return answerFor('PAYLOAD_TOO_LARGE', 'The request body is over 2 MiB')
    case 'E_BAD_CSRF_TOKEN':
      return answerFor('INVALID_CSRF_TOKEN', 'Echo the XSRF-TOKEN cookie in the X-XSRF-TOKEN header')
    case 'E_ENCODING_UNSUPPORTED':
      return answerFor('VALIDATION_ERROR', 'The body encoding is not supported')
  }
  if (error instanceof SyntaxError && status === 400) {
    return answerFor('VALIDATION_ERROR', 'The body is not valid JSON', [{ field: 'body', rule: 'json', message: 'The body is not valid JSON' }])
  }
  if (status === 422 && (error as Error)?.message?.startsWith('Invalid JSON')) {
    return answerFor('VALIDATION_ERROR', 'The body must be a JSON object', [{ field: 'body', rule: 'object', message: 'The body must be a JSON object' }])
  }
  if ((error as { type?: string })?.type === 'request.size.invalid') {
    return answerFor('VALIDATION_ERROR', 'The body length does not match its Content-Length', [
      { field: 'body', rule: 'length', message: 'The body length does not match its Content-Length' },
    ])
  }
  if (status === 415) return answerFor('UNSUPPORTED_MEDIA_TYPE', 'This body is not accepted; send uncompressed JSON')
  if (error instanceof RangeError && /call stack/i.test(error.message) && bodyBeingRead) {
    return answerFor('VALIDATION_ERROR', 'The body is nested too deeply', [{ field: 'body', rule: 'depth', message: 'The body is nested too deeply' }])
  }
  if (status === 404) return answerFor('NOT_FOUND', 'Not found')
  if (status === 413) return answerFor('PAYLOAD_TOO_LARGE', 'The request body is over 2 MiB')
  if (status === 400) return answerFor('VALIDATION_ERROR', 'The request is not valid')
  return answerFor('INTERNAL_ERROR', 'Something went wrong on the gateway; quote the requestId when reporting it')
}
