/**
 * A refusal the API can answer: its HTTP status, its stable code (docs/api-conventions.md, Errors)
 * and the sentence the OpenAPI document shows beside it. A code may stand under several statuses
 * (VALIDATION_ERROR is 400, 409 for a taken unique name, 422 for an out-of-range backup setting),
 * so a kind is the pair.
 */
export interface ErrorKindDefinition {
  status: number
  code: string
  description: string
}

/**
 * The names of every error kind, one key per kind. Core declares its own below; a module adds
 * its kinds with `defineErrorKinds` and declaration merging, so `new ApiError('EMPTY_BODY', ...)`
 * is checked by the compiler wherever the kind comes from:
 *
 *   export const sendErrors = defineErrorKinds({ EMPTY_BODY: { status: 400, ... } })
 *   declare module '#core/http/api_error' {
 *     interface ApiErrorKinds extends KindsOf<typeof sendErrors> {}
 *   }
 */
export interface ApiErrorKinds extends KindsOf<typeof coreErrors> {}

export type ApiErrorKind = keyof ApiErrorKinds & string
export type KindsOf<Table> = { [Name in keyof Table]: true }
export type ErrorDetails = Record<string, unknown> | Array<Record<string, unknown>>

export function defineErrorKinds<Name extends string>(kinds: Record<Name, ErrorKindDefinition>): Record<Name, ErrorKindDefinition> {
  return kinds
}

/**
 * The platform's own refusals: the access layer, validation, the body guard, unknown routes
 * and identifiers, rate limits, idempotency, settings. A module registers its own from its provider.
 */
const coreErrors = defineErrorKinds({
  MISSING_API_KEY: { status: 401, code: 'MISSING_API_KEY', description: 'X-API-KEY header absent' },
  INVALID_API_KEY: { status: 403, code: 'INVALID_API_KEY', description: 'Key unknown or revoked' },
  FORBIDDEN_SCOPE: { status: 403, code: 'FORBIDDEN_SCOPE', description: 'Key scope or account role does not cover the operation' },
  INVALID_CSRF_TOKEN: {
    status: 403,
    code: 'INVALID_CSRF_TOKEN',
    description: 'A cookie-authenticated write without the X-XSRF-TOKEN header echoing the XSRF-TOKEN cookie',
  },
  VALIDATION_ERROR: { status: 400, code: 'VALIDATION_ERROR', description: 'Field missing, malformed or out of range; details names it' },
  NAME_TAKEN: { status: 409, code: 'VALIDATION_ERROR', description: 'A name that must be unique is taken' },
  SETTING_OUT_OF_RANGE: { status: 422, code: 'VALIDATION_ERROR', description: 'A value out of range in a settings section that answers 422 (the backup block)' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, code: 'UNSUPPORTED_MEDIA_TYPE', description: 'The body is not sent as application/json' },
  INVALID_PHONE: { status: 400, code: 'INVALID_PHONE', description: 'Number not in E.164 format' },
  NOT_FOUND: { status: 404, code: 'NOT_FOUND', description: 'Identifier or route unknown' },
  PAYLOAD_TOO_LARGE: { status: 413, code: 'PAYLOAD_TOO_LARGE', description: 'Body over 2 MiB' },
  RATE_LIMITED: { status: 429, code: 'RATE_LIMITED', description: 'Per-minute limit or daily quota exceeded; Retry-After in seconds' },
  IDEMPOTENCY_CONFLICT: { status: 409, code: 'IDEMPOTENCY_CONFLICT', description: 'Idempotency-Key already used with a different body' },
  INTERNAL_ERROR: { status: 500, code: 'INTERNAL_ERROR', description: 'Unexpected problem' },
  STORAGE_FULL: {
    status: 503,
    code: 'STORAGE_FULL',
    description: "The data folder's disk is full: nothing was written. Reads still work; try again after Retry-After seconds, once space is freed",
  },
  DATABASE_BUSY: {
    status: 503,
    code: 'DATABASE_BUSY',
    description: 'Another program holds the database\'s write lock: nothing was written. Try again after Retry-After seconds',
  },
  DASHBOARD_NOT_BUILT: { status: 503, code: 'DASHBOARD_NOT_BUILT', description: 'A dashboard page was asked for, but the dashboard is not built (npm run build)' },
})

/**
 * Every error kind the running gateway knows. A plain module-level catalogue rather than a
 * container service: an ApiError is thrown anywhere, synchronously, far from any container.
 * Modules add their kinds in their provider's `register()`, before any request is served.
 */
class ErrorCatalogue {
  readonly #kinds = new Map<string, ErrorKindDefinition>()

  add(kinds: Record<string, ErrorKindDefinition>): void {
    for (const [name, definition] of Object.entries(kinds)) {
      const known = this.#kinds.get(name)
      if (known && (known.status !== definition.status || known.code !== definition.code)) {
        throw new Error(`Error kind ${name} is defined twice, differently`)
      }
      this.#kinds.set(name, definition)
    }
  }

  get(kind: ApiErrorKind): ErrorKindDefinition {
    const definition = this.#kinds.get(kind)
    if (!definition) throw new Error(`Unknown error kind ${kind}: is its module's provider registered?`)
    return definition
  }

  entries(): Array<[ApiErrorKind, ErrorKindDefinition]> {
    return [...this.#kinds] as Array<[ApiErrorKind, ErrorKindDefinition]>
  }
}

export const errorCatalogue = new ErrorCatalogue()
errorCatalogue.add(coreErrors)

/**
 * A refusal with a stable code. Thrown anywhere below a controller; the exception handler turns
 * it into `{error: {code, message, details?, requestId}}`. The message is short English and must
 * never carry SMS text, a full phone number or a key.
 */
export class ApiError extends Error {
  readonly kind: ApiErrorKind
  readonly status: number
  readonly code: string
  readonly details?: ErrorDetails
  readonly headers: Record<string, string>

  constructor(kind: ApiErrorKind, message: string, details?: ErrorDetails, headers: Record<string, string> = {}) {
    super(message)
    this.name = 'ApiError'
    const definition = errorCatalogue.get(kind)
    this.kind = kind
    this.status = definition.status
    this.code = definition.code
    this.details = details
    this.headers = headers
  }

  static notFound(what: string) {
    return new ApiError('NOT_FOUND', `${what} not found`)
  }

  static validation(field: string, rule: string, message: string) {
    return new ApiError('VALIDATION_ERROR', message, [{ field, rule, message }])
  }
}
