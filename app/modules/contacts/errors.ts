import { defineErrorKinds, type KindsOf } from '#core/http/api_error'

/** Refusals of the actions over many contacts (docs/api-conventions.md, Errors). */
export const contactErrors = defineErrorKinds({
  TOO_MANY_CONTACTS: {
    status: 422,
    code: 'TOO_MANY_CONTACTS',
    description: "An opt-out's or a group addition's filter matches more than 10,000 contacts. Nothing changed",
  },
})

declare module '#core/http/api_error' {
  interface ApiErrorKinds extends KindsOf<typeof contactErrors> {}
}
