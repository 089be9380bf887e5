import { defineErrorKinds, type KindsOf } from '#core/http/api_error'

/** Refusals of our agent's socket (docs/device-protocol.md). */
export const agentErrors = defineErrorKinds({
  UPGRADE_REQUIRED: { status: 426, code: 'UPGRADE_REQUIRED', description: 'This address takes a WebSocket upgrade only' },
  INVALID_DEVICE_CREDENTIAL: {
    status: 401,
    code: 'INVALID_DEVICE_CREDENTIAL',
    description: "The phone's device credential is unknown or revoked: pair the phone again",
  },
})

declare module '#core/http/api_error' {
  interface ApiErrorKinds extends KindsOf<typeof agentErrors> {}
}
