import { defineErrorKinds, type KindsOf } from '#core/http/api_error'

/** Refusals of a send (docs/api-conventions.md, Errors; INVALID_PHONE and an idempotent request's IDEMPOTENCY_CONFLICT are core's). */
export const sendErrors = defineErrorKinds({
  EMPTY_BODY: { status: 400, code: 'EMPTY_BODY', description: 'Message has no text' },
  CONTACT_BLACKLISTED: { status: 403, code: 'CONTACT_BLACKLISTED', description: 'A recipient opted out. Nothing queued' },
  SCHEDULED_AT_IN_PAST: { status: 422, code: 'SCHEDULED_AT_IN_PAST', description: 'scheduledAt not in the future' },
})

declare module '#core/http/api_error' {
  interface ApiErrorKinds extends KindsOf<typeof sendErrors> {}
}
