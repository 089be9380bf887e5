import { defineErrorKinds, type KindsOf } from '#core/http/api_error'

/** Refusals of sends, retries and bulk actions (docs/api-conventions.md, Errors; an idempotent request's IDEMPOTENCY_CONFLICT is core's). */
export const messageErrors = defineErrorKinds({
  EMPTY_BODY: { status: 400, code: 'EMPTY_BODY', description: 'Message has no text' },
  CONTACT_BLACKLISTED: { status: 403, code: 'CONTACT_BLACKLISTED', description: 'A recipient opted out. Nothing queued' },
  SCHEDULED_AT_IN_PAST: { status: 422, code: 'SCHEDULED_AT_IN_PAST', description: 'scheduledAt not in the future' },
  MESSAGE_NOT_FAILED: { status: 409, code: 'MESSAGE_NOT_FAILED', description: 'Only a failed message can be retried' },
  TOO_MANY_MESSAGES: { status: 422, code: 'TOO_MANY_MESSAGES', description: 'A bulk action\'s filter matches more than 10,000 messages. Nothing changed' },
})

declare module '#core/http/api_error' {
  interface ApiErrorKinds extends KindsOf<typeof messageErrors> {}
}
