import { defineErrorKinds, type KindsOf } from '#core/http/api_error'

/** Refusals of automation rules (docs/automation.md). */
export const automationErrors = defineErrorKinds({
  RULE_ORDER_MISMATCH: { status: 409, code: 'RULE_ORDER_MISMATCH', description: 'The order given does not name every rule exactly once' },
})

declare module '#core/http/api_error' {
  interface ApiErrorKinds extends KindsOf<typeof automationErrors> {}
}
