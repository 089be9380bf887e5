import { defineErrorKinds, type KindsOf } from '#core/http/api_error'

/** The refusal of a bulk action too large for one request (docs/api-conventions.md, Errors). */
export const messageBulkErrors = defineErrorKinds({
  TOO_MANY_MESSAGES: { status: 422, code: 'TOO_MANY_MESSAGES', description: 'A bulk action\'s filter matches more than 10,000 messages. Nothing changed' },
})

declare module '#core/http/api_error' {
  interface ApiErrorKinds extends KindsOf<typeof messageBulkErrors> {}
}
