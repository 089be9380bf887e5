import { defineErrorKinds, type KindsOf } from '#core/http/api_error'

/** Refusals of pairing. */
export const deviceErrors = defineErrorKinds({
  INVALID_PAIRING_CODE: { status: 400, code: 'INVALID_PAIRING_CODE', description: 'The pairing code is unknown, expired or already used' },
  PAIRING_THROTTLED: {
    status: 429,
    code: 'RATE_LIMITED',
    description: 'Too many wrong pairing codes from this address: every code, a right one too, is refused until Retry-After (seconds)',
  },
})

declare module '#core/http/api_error' {
  interface ApiErrorKinds extends KindsOf<typeof deviceErrors> {}
}
