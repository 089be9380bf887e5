import type { JsonSchema } from '#core/contract/route_contract'
import type { RouteRegistry } from '#core/contract/route_registry'
import type { JsonOf } from '#core/contract/typed_schema'
import { isoDateTimeSchema } from '#core/contract/schemas'

/** A dashboard account; `User.toResource` (models/user.ts) answers it. */
export const userSchema = {
  type: 'object',
  required: ['id', 'email', 'name', 'role', 'createdAt', 'updatedAt'],
  properties: {
    id: { type: 'string' },
    email: { type: 'string', format: 'email' },
    name: { type: 'string' },
    role: { enum: ['superadmin', 'operator', 'readonly'] },
    createdAt: isoDateTimeSchema,
    updatedAt: isoDateTimeSchema,
  },
} as const
export type UserResource = JsonOf<typeof userSchema>

/** An integration's key, never its secret; `ApiKey.toResource` (models/api_key.ts) answers it. */
export const apiKeySchema = {
  type: 'object',
  required: ['id', 'name', 'scope', 'lastFour', 'allowedIps', 'callsPerMinute', 'callsPerDay', 'createdAt', 'updatedAt', 'lastUsedAt'],
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    scope: { enum: ['read', 'send', 'admin'] },
    lastFour: { type: 'string', description: 'Last four characters of the secret, to recognise it' },
    allowedIps: { type: 'array', items: { type: 'string' }, description: 'Empty: any address' },
    callsPerMinute: { type: ['integer', 'null'] },
    callsPerDay: { type: ['integer', 'null'], description: 'Counted per UTC day' },
    createdAt: isoDateTimeSchema,
    updatedAt: isoDateTimeSchema,
    lastUsedAt: { type: ['string', 'null'], format: 'date-time', description: 'To the minute' },
  },
} as const
export type ApiKeyResource = JsonOf<typeof apiKeySchema>

const platformTimezone = {
  type: 'string',
  description: 'The platform time zone (Settings > Sending, IANA name): local days, the midnight quota reset and campaign send windows follow it',
  examples: ['Europe/Paris'],
} as const

export const setupStateSchema = { type: 'object', required: ['open'], properties: { open: { type: 'boolean' } } } as const

export const endedSessionsSchema = {
  type: 'object',
  required: ['endedSessions'],
  properties: { endedSessions: { type: 'integer', minimum: 0, description: 'How many other sessions of the account were signed out' } },
} as const

export const assignableAccountsSchema = {
  type: 'object',
  required: ['data'],
  additionalProperties: false,
  properties: {
    data: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'name', 'role'],
        additionalProperties: false,
        properties: { id: { type: 'string' }, name: { type: 'string' }, role: { enum: ['superadmin', 'operator'] } },
      },
    },
  },
} as const

/** A key with its secret, shown once (creation, rotation); `apiKey` is the ApiKey schema or its reference. */
export function keyWithSecretSchema<const K extends JsonSchema>(apiKey: K) {
  return {
    type: 'object',
    required: ['apiKey', 'secret'],
    properties: {
      apiKey,
      secret: { type: 'string', description: 'Shown this once: only a fingerprint is kept. Send it as X-API-KEY' },
    },
  } as const
}

export function signedInSchema<const U extends JsonSchema>(user: U) {
  return { type: 'object', required: ['user'], properties: { user } } as const
}

/** GET /auth/me: the account and its role, or the key and its scope, with the platform time zone. */
export function callerSchema<const U extends JsonSchema, const K extends JsonSchema>(user: U, apiKey: K) {
  return {
    oneOf: [
      {
        type: 'object',
        required: ['type', 'role', 'user', 'timezone'],
        properties: { type: { const: 'session' }, role: { enum: ['superadmin', 'operator', 'readonly'] }, user, timezone: platformTimezone },
      },
      {
        type: 'object',
        required: ['type', 'scope', 'apiKey', 'timezone'],
        properties: { type: { const: 'api_key' }, scope: { enum: ['read', 'send', 'admin'] }, apiKey, timezone: platformTimezone },
      },
    ],
  } as const
}

export type SetupState = JsonOf<typeof setupStateSchema>
export type EndedSessions = JsonOf<typeof endedSessionsSchema>
export type AssignableAccounts = JsonOf<typeof assignableAccountsSchema>
export type KeyWithSecret = JsonOf<ReturnType<typeof keyWithSecretSchema<typeof apiKeySchema>>>
export type SignedIn = JsonOf<ReturnType<typeof signedInSchema<typeof userSchema>>>
export type CallerAnswer = JsonOf<ReturnType<typeof callerSchema<typeof userSchema, typeof apiKeySchema>>>

/** The module's resources as published in the OpenAPI document. */
export function authSchemas(registry: RouteRegistry) {
  return { user: registry.addSchema('User', userSchema), apiKey: registry.addSchema('ApiKey', apiKeySchema) }
}
