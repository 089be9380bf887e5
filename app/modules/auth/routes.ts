import { access } from '#core/http/access'
import { authPermissions } from '#modules/auth/permissions'
import { defineRoutes } from '#core/contract/route_contract'
import { pageOf } from '#core/contract/schemas'
import {
  assignableAccountsSchema,
  authSchemas,
  callerSchema,
  endedSessionsSchema,
  keyWithSecretSchema,
  setupStateSchema,
  signedInSchema,
} from '#modules/auth/schemas'
import type { RouteRegistry } from '#core/contract/route_registry'
import { SESSION_COOKIE_NAME } from '#config/session'
import {
  changeOwnPasswordValidator,
  createUserValidator,
  setUpValidator,
  signInValidator,
  updateUserValidator,
} from '#modules/auth/validators/account_validators'
import { createApiKeyValidator, updateApiKeyValidator } from '#modules/auth/validators/api_key_validators'
import { pageQueryValidator } from '#core/pagination/keyset_page'

const SessionController = () => import('#modules/auth/controllers/session_controller')
const UsersController = () => import('#modules/auth/controllers/users_controller')
const ApiKeysController = () => import('#modules/auth/controllers/api_keys_controller')
const OwnAccountController = () => import('#modules/auth/controllers/own_account_controller')

/** Dashboard accounts and sessions, and API keys. */
export function authRoutes(registry: RouteRegistry) {
  registry.describeTag('Accounts', "Dashboard sign-in, the first account, one's own password and sessions (every role), and accounts (superadmin session only)")
  registry.describeTag('API keys', 'Keys of integrations: created, changed, rotated and revoked from a superadmin session')
  registry.securitySchemes.set('Session', {
    type: 'apiKey',
    in: 'cookie',
    name: SESSION_COOKIE_NAME,
    description:
      'Dashboard session (POST /api/v1/auth/login). Writes also need the X-XSRF-TOKEN header echoing the XSRF-TOKEN cookie.',
  })
  for (const kind of ['IP_NOT_ALLOWED', 'RATE_LIMITED', 'INVALID_CSRF_TOKEN'] as const) registry.protectedRouteErrors.add(kind)

  const { user, apiKey } = authSchemas(registry)
  const keyWithSecret = keyWithSecretSchema(apiKey)
  const signedIn = signedInSchema(user)

  return defineRoutes([
    {
      method: 'GET',
      path: '/api/v1/auth/setup',
      operationId: 'getSetupState',
      summary: 'Whether the first-account setup is open',
      description:
        'open: true on a fresh gateway (no account yet: POST /api/v1/auth/setup creates the superadmin), false once any ' +
        'account exists. The dashboard reads it to show the setup form or the sign-in form.',
      tag: 'Accounts',
      access: access.public(),
      answer: {
        status: 200,
        description: 'The setup state',
        schema: setupStateSchema,
      },
      handler: [SessionController, 'setUpState'],
    },
    {
      method: 'POST',
      path: '/api/v1/auth/setup',
      operationId: 'setUpFirstAccount',
      summary: 'Create the first account (superadmin) and sign it in',
      description: 'Open only while no account exists; refused with 409 ALREADY_SET_UP afterwards.',
      tag: 'Accounts',
      access: access.public(),
      body: setUpValidator,
      answer: { status: 201, description: 'The superadmin, signed in (session cookie set)', schema: signedIn },
      errors: ['ALREADY_SET_UP'],
      handler: [SessionController, 'setUp'],
    },
    {
      method: 'POST',
      path: '/api/v1/auth/login',
      operationId: 'signIn',
      summary: 'Sign in to the dashboard',
      description:
        'Sets the session cookie (HttpOnly, SameSite=Lax, Secure over https) and the XSRF-TOKEN cookie; a failed try ' +
        'sets neither. Needs X-XSRF-TOKEN only from a browser already signed in (403 INVALID_CSRF_TOKEN without it). ' +
        'Repeated failures for an address are slowed, then refused with 429 RATE_LIMITED and Retry-After.',
      tag: 'Accounts',
      access: access.public(),
      body: signInValidator,
      answer: { status: 200, description: 'Signed in', schema: signedIn },
      errors: ['INVALID_CREDENTIALS', 'RATE_LIMITED', 'INVALID_CSRF_TOKEN'],
      handler: [SessionController, 'signIn'],
    },
    {
      method: 'POST',
      path: '/api/v1/auth/logout',
      operationId: 'signOut',
      summary: 'Sign out of the dashboard',
      tag: 'Accounts',
      access: access.public(),
      answer: { status: 204, description: 'Signed out (also when no one was signed in)' },
      errors: ['INVALID_CSRF_TOKEN'],
      handler: [SessionController, 'signOut'],
    },
    {
      method: 'GET',
      path: '/api/v1/auth/me',
      operationId: 'getCaller',
      summary: 'The caller: account and role, or key and scope',
      tag: 'Accounts',
      access: authPermissions['caller.read'],
      answer: {
        status: 200,
        description: 'The caller',
        schema: callerSchema(user, apiKey),
      },
      handler: [SessionController, 'me'],
    },
    {
      method: 'PUT',
      path: '/api/v1/auth/password',
      operationId: 'changeOwnPassword',
      summary: "Change the signed-in account's own password (any role, session only)",
      description:
        'For every role, from a signed-in session only: refused to every API key (403 FORBIDDEN_SCOPE). Needs the ' +
        'current password: a wrong one is 403 WRONG_CURRENT_PASSWORD (details names currentPassword) and counts as ' +
        'a failed sign-in of that address from that network address, so repeated tries are slowed, then refused with ' +
        '429 RATE_LIMITED and Retry-After, at this endpoint and at sign-in alike. The new password follows the ' +
        'account rules (10 to 128 characters) and differs from the current one. Every other session of the account ' +
        'is signed out; this one stays, under a new session cookie (a copy of the old cookie no longer works). ' +
        'Works while the license is withdrawn.',
      tag: 'Accounts',
      access: authPermissions['ownAccount.change'],
      body: changeOwnPasswordValidator,
      answer: { status: 200, description: 'Changed; the other sessions are signed out', schema: endedSessionsSchema },
      errors: ['WRONG_CURRENT_PASSWORD', 'RATE_LIMITED'],
      handler: [OwnAccountController, 'changePassword'],
    },
    {
      method: 'POST',
      path: '/api/v1/auth/logout-others',
      operationId: 'signOutOtherSessions',
      summary: "Sign out every other session of the signed-in account (any role, session only)",
      description:
        'For every role, from a signed-in session only: refused to every API key (403 FORBIDDEN_SCOPE). Every ' +
        'other browser signed in to this account is signed out at its next request; this one stays, under a new ' +
        'session cookie (a copy of the old cookie no longer works). Takes no body. Works while the license is withdrawn.',
      tag: 'Accounts',
      access: authPermissions['ownAccount.change'],
      answer: { status: 200, description: 'The other sessions are signed out', schema: endedSessionsSchema },
      handler: [OwnAccountController, 'endOtherSessions'],
    },
    {
      method: 'GET',
      path: '/api/v1/users',
      operationId: 'listUsers',
      summary: 'Dashboard accounts',
      tag: 'Accounts',
      access: authPermissions['users.read'],
      query: pageQueryValidator,
      answer: { status: 200, description: 'A page of accounts, newest first', schema: pageOf(user) },
      handler: [UsersController, 'index'],
    },
    {
      method: 'GET',
      path: '/api/v1/users/assignable',
      operationId: 'listAssignableAccounts',
      summary: 'Accounts a conversation can be assigned to',
      description:
        'Operators and superadmins (a read-only account cannot answer), by name: id, name and role only. Readable by every ' +
        'reader of conversations, so an operator can assign a conversation to a colleague.',
      tag: 'Accounts',
      access: authPermissions['users.assignable'],
      answer: {
        status: 200,
        description: 'Every assignable account (a gateway has a handful: not paged)',
        schema: assignableAccountsSchema,
      },
      handler: [UsersController, 'assignable'],
    },
    {
      method: 'POST',
      path: '/api/v1/users',
      operationId: 'createUser',
      summary: 'Create an account (superadmin session only)',
      tag: 'Accounts',
      access: authPermissions['users.change'],
      body: createUserValidator,
      answer: { status: 201, description: 'The account', schema: user },
      errors: ['NAME_TAKEN'],
      handler: [UsersController, 'store'],
    },
    {
      method: 'PATCH',
      path: '/api/v1/users/:id',
      operationId: 'updateUser',
      summary: 'Change an account (superadmin session only)',
      description: 'Partial. The last superadmin cannot be demoted.',
      tag: 'Accounts',
      access: authPermissions['users.change'],
      body: updateUserValidator,
      params: { id: 'Account identifier' },
      answer: { status: 200, description: 'The account', schema: user },
      errors: ['NOT_FOUND', 'NAME_TAKEN', 'LAST_SUPERADMIN'],
      handler: [UsersController, 'update'],
    },
    {
      method: 'DELETE',
      path: '/api/v1/users/:id',
      operationId: 'deleteUser',
      summary: 'Delete an account and end its sessions (superadmin session only)',
      description: 'The last superadmin cannot be deleted.',
      tag: 'Accounts',
      access: authPermissions['users.change'],
      params: { id: 'Account identifier' },
      answer: { status: 204, description: 'Deleted' },
      errors: ['NOT_FOUND', 'LAST_SUPERADMIN'],
      handler: [UsersController, 'destroy'],
    },
    {
      method: 'GET',
      path: '/api/v1/api-keys',
      operationId: 'listApiKeys',
      summary: 'API keys (never their secrets)',
      tag: 'API keys',
      access: authPermissions['apiKeys.read'],
      query: pageQueryValidator,
      answer: { status: 200, description: 'A page of keys, newest first', schema: pageOf(apiKey) },
      handler: [ApiKeysController, 'index'],
    },
    {
      method: 'POST',
      path: '/api/v1/api-keys',
      operationId: 'createApiKey',
      summary: 'Create an API key (superadmin session only)',
      tag: 'API keys',
      access: authPermissions['apiKeys.change'],
      body: createApiKeyValidator,
      answer: { status: 201, description: 'The key and its secret, shown this once', schema: keyWithSecret },
      errors: ['NAME_TAKEN'],
      handler: [ApiKeysController, 'store'],
    },
    {
      method: 'PATCH',
      path: '/api/v1/api-keys/:id',
      operationId: 'updateApiKey',
      summary: 'Change a key: name, scope, allowed addresses, limits (null clears a limit)',
      tag: 'API keys',
      access: authPermissions['apiKeys.change'],
      body: updateApiKeyValidator,
      params: { id: 'API key identifier' },
      answer: { status: 200, description: 'The key', schema: apiKey },
      errors: ['NOT_FOUND', 'NAME_TAKEN'],
      handler: [ApiKeysController, 'update'],
    },
    {
      method: 'POST',
      path: '/api/v1/api-keys/:id/rotate',
      operationId: 'rotateApiKey',
      summary: 'Give a key a new secret; the old one stops working at once',
      tag: 'API keys',
      access: authPermissions['apiKeys.change'],
      params: { id: 'API key identifier' },
      answer: { status: 200, description: 'The key and its new secret, shown this once', schema: keyWithSecret },
      errors: ['NOT_FOUND'],
      handler: [ApiKeysController, 'rotate'],
    },
    {
      method: 'DELETE',
      path: '/api/v1/api-keys/:id',
      operationId: 'revokeApiKey',
      summary: 'Revoke a key: INVALID_API_KEY from then on',
      tag: 'API keys',
      access: authPermissions['apiKeys.change'],
      params: { id: 'API key identifier' },
      answer: { status: 204, description: 'Revoked' },
      errors: ['NOT_FOUND'],
      handler: [ApiKeysController, 'destroy'],
    },
  ])
}

/** The module's contracts as typed, for its handlers' input (`routeInputs<AuthRoutes>()`). */
export type AuthRoutes = ReturnType<typeof authRoutes>
