import { defineErrorKinds, type KindsOf } from '#core/http/api_error'

/** Refusals of contact imports (docs/api-conventions.md, Errors). */
export const contactImportErrors = defineErrorKinds({
  IMPORT_ALREADY_STARTED: { status: 409, code: 'IMPORT_ALREADY_STARTED', description: 'A contact import is mapped and started once' },
})

declare module '#core/http/api_error' {
  interface ApiErrorKinds extends KindsOf<typeof contactImportErrors> {}
}
