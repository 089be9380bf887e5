import { defineErrorKinds, type KindsOf } from '#core/http/api_error'

/** Refusals of sends and retries (docs/api-conventions.md, Errors; an idempotent request's IDEMPOTENCY_CONFLICT is core's). */
export const messageErrors = defineErrorKinds({
  EMPTY_BODY: { status: 400, code: 'EMPTY_BODY', description: 'Message has no text' },
  CONTACT_BLACKLISTED: { status: 403, code: 'CONTACT_BLACKLISTED', description: 'A recipient opted out. Nothing queued' },
  SCHEDULED_AT_IN_PAST: { status: 422, code: 'SCHEDULED_AT_IN_PAST', description: 'scheduledAt not in the future' },
  MESSAGE_NOT_FAILED: { status: 409, code: 'MESSAGE_NOT_FAILED', description: 'Only a failed message can be retried' },
})

declare module '#core/http/api_error' {
  interface ApiErrorKinds extends KindsOf<typeof messageErrors> {}
}
