import { defineErrorKinds, type KindsOf } from '#core/http/api_error'

/** Refusals of retries (docs/api-conventions.md, Errors; a send's are the sending module's, a bulk action's the message_bulk module's). */
export const messageErrors = defineErrorKinds({
  MESSAGE_NOT_FAILED: { status: 409, code: 'MESSAGE_NOT_FAILED', description: 'Only a failed message can be retried' },
})

declare module '#core/http/api_error' {
  interface ApiErrorKinds extends KindsOf<typeof messageErrors> {}
}
