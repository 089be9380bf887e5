import { defineErrorKinds, type KindsOf } from '#core/http/api_error'

/**
 * Refusals of the SMSGate app's protocol (docs/smsgate.md). The app reads only the status: a 401
 * on `PATCH /device` makes it register again, so 401 is answered only for a token or code that
 * really does not work.
 */
export const smsgateErrors = defineErrorKinds({
  SMSGATE_UNAUTHORIZED: {
    status: 401,
    code: 'INVALID_DEVICE_TOKEN',
    description: 'No device token, or one that is unknown or revoked (pair the phone again); at registration: no code, or a wrong, expired or used one',
  },
  SMSGATE_OTHER_DEVICE: { status: 403, code: 'FORBIDDEN_DEVICE', description: "The body names another device than the token's" },
  SMSGATE_STOPPING: { status: 503, code: 'SERVICE_UNAVAILABLE', description: 'The gateway is stopping: connect again in a moment' },
})

declare module '#core/http/api_error' {
  interface ApiErrorKinds extends KindsOf<typeof smsgateErrors> {}
}
