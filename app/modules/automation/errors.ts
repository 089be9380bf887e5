import { defineErrorKinds, type KindsOf } from '#core/http/api_error'

/** Refusals of automation rules (docs/automation.md). */
export const automationErrors = defineErrorKinds({
  RULE_ORDER_MISMATCH: { status: 409, code: 'RULE_ORDER_MISMATCH', description: 'The order given does not name every rule exactly once' },
  // A well-formed rule refused for the gateway's state, not for a field: deleting a rule makes room.
  RULE_LIMIT_REACHED: { status: 409, code: 'RULE_LIMIT_REACHED', description: 'The gateway already holds the most rules it may (200)' },
  RULE_CALLS_NO_URL: { status: 409, code: 'RULE_CALLS_NO_URL', description: 'The rule has no call_url action, so it has no secret to rotate' },
})

declare module '#core/http/api_error' {
  interface ApiErrorKinds extends KindsOf<typeof automationErrors> {}
}
