/**
 * The log never carries a full phone number, a password or a key (docs/api-conventions.md). Structured fields with those names are censored by
 * pino's `redact`; free text (messages, URLs) goes through `redactText`.
 */
export const REDACTED = '[redacted]'

/** Field names whose values never reach the log, at any depth pino's redact can express. */
export const redactedPaths = [
  'password',
  'secret',
  'apiKey',
  'token',
  'body',
  'text',
  'phone',
  'to',
  '*.password',
  '*.secret',
  '*.apiKey',
  '*.token',
  '*.body',
  '*.text',
  '*.phone',
  '*.to',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'req.headers.authorization',
  'headers.cookie',
  'headers["x-api-key"]',
  'headers.authorization',
]

/**
 * Something that looks like a phone number: an optional `+`, then 7 to 15 digits possibly
 * split by spaces, dots, dashes or brackets. Not preceded or followed by a word character, so
 * ids and hex strings are left alone.
 */
const PHONE_LIKE = /(?<![\w.:-])\+?\d(?:[\s().-]?\d){6,14}(?![\w:])/g

/** Query-string values whose names say they are secret. */
const SECRET_QUERY = /([?&](?:api[_-]?key|key|token|secret|password|x-api-key)=)[^&#\s]*/gi

export function maskPhone(value: string): string {
  const digits = value.replace(/\D/g, '')
  if (digits.length <= 4) return '•'.repeat(digits.length)
  const prefix = value.trim().startsWith('+') ? '+' : ''
  return `${prefix}${digits.slice(0, 2)}${'•'.repeat(digits.length - 4)}${digits.slice(-2)}`
}

export function redactText(text: string): string {
  return text.replace(SECRET_QUERY, `$1${REDACTED}`).replace(PHONE_LIKE, (match) => maskPhone(match))
}

/**
 * An error as it may be logged or stored: type, code and message and stack with phone numbers
 * masked. Database drivers and parsers may quote the data they choked on in their messages.
 */
export function logSafeError(error: unknown): { type: string; code?: string; message: string; stack?: string } {
  if (!(error instanceof Error)) return { type: typeof error, message: redactText(String(error)) }
  const code = (error as { code?: unknown }).code
  return {
    type: error.name,
    ...(typeof code === 'string' ? { code } : {}),
    message: redactText(error.message),
    ...(error.stack ? { stack: redactText(error.stack) } : {}),
  }
}
