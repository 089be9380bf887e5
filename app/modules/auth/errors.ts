import { defineErrorKinds, type KindsOf } from '#core/http/api_error'

/** Refusals of accounts, sign-in, API keys and the license gate. */
export const authErrors = defineErrorKinds({
  IP_NOT_ALLOWED: { status: 403, code: 'IP_NOT_ALLOWED', description: "Call from an address outside the key's allowed list" },
  LICENSE_BLOCKED: { status: 403, code: 'LICENSE_BLOCKED', description: 'License withdrawn. Reads work, writes refused' },
  INVALID_CREDENTIALS: { status: 401, code: 'INVALID_CREDENTIALS', description: 'Unknown address or wrong password' },
  ALREADY_SET_UP: { status: 409, code: 'ALREADY_SET_UP', description: 'The first account exists already: sign in instead' },
  LAST_SUPERADMIN: { status: 409, code: 'LAST_SUPERADMIN', description: 'The last superadmin cannot be deleted or demoted' },
  // 403, not 401: the caller is signed in, and a dashboard treats 401 as "signed out".
  WRONG_CURRENT_PASSWORD: {
    status: 403,
    code: 'WRONG_CURRENT_PASSWORD',
    description: 'The current password given to change it is wrong (details names currentPassword); counts as a failed sign-in',
  },
})

declare module '#core/http/api_error' {
  interface ApiErrorKinds extends KindsOf<typeof authErrors> {}
}
