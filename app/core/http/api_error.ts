/**
 * Every refusal the API can answer, with its HTTP status. Codes come from the spec's Errors
 * table; a code may stand under several statuses (VALIDATION_ERROR is 400, 409 for a taken
 * unique name, 422 for an out-of-range backup setting), so an entry is the pair.
 */
export const apiErrors = {
  MISSING_API_KEY: { status: 401, code: 'MISSING_API_KEY', description: 'X-API-KEY header absent' },
  INVALID_API_KEY: { status: 403, code: 'INVALID_API_KEY', description: 'Key unknown or revoked' },
  IP_NOT_ALLOWED: { status: 403, code: 'IP_NOT_ALLOWED', description: "Call from an address outside the key's allowed list" },
  FORBIDDEN_SCOPE: { status: 403, code: 'FORBIDDEN_SCOPE', description: 'Key scope or account role does not cover the operation' },
  VALIDATION_ERROR: { status: 400, code: 'VALIDATION_ERROR', description: 'Field missing, malformed or out of range; details names it' },
  NAME_TAKEN: { status: 409, code: 'VALIDATION_ERROR', description: 'A name that must be unique is taken' },
  SETTING_OUT_OF_RANGE: { status: 422, code: 'VALIDATION_ERROR', description: 'Backup setting value out of range' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, code: 'UNSUPPORTED_MEDIA_TYPE', description: 'The body is not sent as application/json' },
  INVALID_PHONE: { status: 400, code: 'INVALID_PHONE', description: 'Number not in E.164 format' },
  EMPTY_BODY: { status: 400, code: 'EMPTY_BODY', description: 'Message has no text' },
  CONTACT_BLACKLISTED: { status: 403, code: 'CONTACT_BLACKLISTED', description: 'A recipient opted out. Nothing queued' },
  SCHEDULED_AT_IN_PAST: { status: 422, code: 'SCHEDULED_AT_IN_PAST', description: 'scheduledAt not in the future' },
  NOT_FOUND: { status: 404, code: 'NOT_FOUND', description: 'Identifier or route unknown' },
  IDEMPOTENCY_CONFLICT: { status: 409, code: 'IDEMPOTENCY_CONFLICT', description: 'Idempotency-Key already used with a different body' },
  PAYLOAD_TOO_LARGE: { status: 413, code: 'PAYLOAD_TOO_LARGE', description: 'Body over 2 MiB' },
  RATE_LIMITED: { status: 429, code: 'RATE_LIMITED', description: 'Per-minute limit or daily quota exceeded; Retry-After in seconds' },
  LICENSE_BLOCKED: { status: 403, code: 'LICENSE_BLOCKED', description: 'License withdrawn. Reads work, writes refused' },
  INVALID_CREDENTIALS: { status: 401, code: 'INVALID_CREDENTIALS', description: 'Unknown address or wrong password' },
  INVALID_CSRF_TOKEN: {
    status: 403,
    code: 'INVALID_CSRF_TOKEN',
    description: 'A cookie-authenticated write without the X-XSRF-TOKEN header echoing the XSRF-TOKEN cookie',
  },
  ALREADY_SET_UP: { status: 409, code: 'ALREADY_SET_UP', description: 'The first account exists already: sign in instead' },
  LAST_SUPERADMIN: { status: 409, code: 'LAST_SUPERADMIN', description: 'The last superadmin cannot be deleted or demoted' },
  MESSAGE_NOT_FAILED: { status: 409, code: 'MESSAGE_NOT_FAILED', description: 'Only a failed message can be retried' },
  INVALID_PAIRING_CODE: { status: 400, code: 'INVALID_PAIRING_CODE', description: 'The pairing code is unknown, expired or already used' },
  PAIRING_THROTTLED: {
    status: 429,
    code: 'RATE_LIMITED',
    description: 'Too many wrong pairing codes from this address: every code, a right one too, is refused until Retry-After (seconds)',
  },
  UPGRADE_REQUIRED: { status: 426, code: 'UPGRADE_REQUIRED', description: 'This address takes a WebSocket upgrade only' },
  INVALID_DEVICE_CREDENTIAL: {
    status: 401,
    code: 'INVALID_DEVICE_CREDENTIAL',
    description: "The phone's device credential is unknown or revoked: pair the phone again",
  },
  WEBHOOK_INACTIVE: { status: 409, code: 'WEBHOOK_INACTIVE', description: 'Replay refused: the webhook is paused or switched off' },
  NOT_REPLAYABLE: { status: 409, code: 'NOT_REPLAYABLE', description: "Replay refused: a rule's call cannot be replayed" },
  INTERNAL_ERROR: { status: 500, code: 'INTERNAL_ERROR', description: 'Unexpected problem' },
  BACKUP_UNREADABLE: { status: 422, code: 'BACKUP_UNREADABLE', description: 'File damaged or not a backup of this product' },
  BACKUP_SCHEMA_TOO_RECENT: { status: 422, code: 'BACKUP_SCHEMA_TOO_RECENT', description: 'Copy made by a newer gateway version' },
  BACKUP_FAILED: { status: 503, code: 'BACKUP_FAILED', description: 'The backup failed' },
} as const satisfies Record<string, { status: number; code: string; description: string }>

export type ApiErrorKind = keyof typeof apiErrors
export type ApiErrorEntry = (typeof apiErrors)[ApiErrorKind]

export type ErrorDetails = Record<string, unknown> | Array<Record<string, unknown>>

/**
 * A refusal with a stable code. Thrown anywhere below a controller; the exception handler turns
 * it into `{error: {code, message, details?, requestId}}`. The message is short English and must
 * never carry SMS text, a full phone number or a key.
 */
export class ApiError extends Error {
  readonly status: number
  readonly code: string
  readonly details?: ErrorDetails
  readonly headers: Record<string, string>

  constructor(kind: ApiErrorKind, message: string, details?: ErrorDetails, headers: Record<string, string> = {}) {
    super(message)
    this.name = 'ApiError'
    this.status = apiErrors[kind].status
    this.code = apiErrors[kind].code
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
