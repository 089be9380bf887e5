import { defineErrorKinds, type KindsOf } from '#core/http/api_error'

/** Refusals of retries and bulk actions (docs/api-conventions.md, Errors; a send's are the sending module's). */
export const messageErrors = defineErrorKinds({
  MESSAGE_NOT_FAILED: { status: 409, code: 'MESSAGE_NOT_FAILED', description: 'Only a failed message can be retried' },
  TOO_MANY_MESSAGES: { status: 422, code: 'TOO_MANY_MESSAGES', description: 'A bulk action\'s filter matches more than 10,000 messages. Nothing changed' },
})

declare module '#core/http/api_error' {
  interface ApiErrorKinds extends KindsOf<typeof messageErrors> {}
}
