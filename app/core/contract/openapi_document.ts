import { errorCatalogue, type ApiErrorKind } from '#core/http/api_error'
import type { JsonSchema, RouteContract } from '#core/contract/route_contract'
import type { RouteRegistry } from '#core/contract/route_registry'
import { errorObjectSchema } from '#core/contract/schemas'
import { liveChannelSchemas } from '#core/live/live_channels'

export interface DocumentInfo {
  title: string
  version: string
  description: string
}

/** `/api/v1/webhooks/:id` → `/api/v1/webhooks/{id}` (and no trailing slash, as the router). */
export function toOpenApiPath(pattern: string): string {
  const trimmed = pattern.length > 1 ? pattern.replace(/\/+$/, '') : pattern
  return trimmed.replace(/:([A-Za-z0-9_]+)/g, '{$1}')
}

/** The errors a route can answer: its own plus the common ones its shape implies. */
export function errorsOf(contract: RouteContract, registry: RouteRegistry): ApiErrorKind[] {
  const kinds = new Set<ApiErrorKind>(contract.errors ?? [])
  if (contract.access.kind === 'protected') {
    for (const kind of registry.protectedRouteErrors) kinds.add(kind)
    if (contract.access.write) for (const kind of registry.writeRouteErrors) kinds.add(kind)
  }
  // Every route runs the body guards (route_registry.ts), a route that takes no body included:
  // a body over the cap, not JSON, malformed or carrying any field is refused there.
  kinds.add('VALIDATION_ERROR')
  kinds.add('PAYLOAD_TOO_LARGE')
  kinds.add('UNSUPPORTED_MEDIA_TYPE')
  kinds.add('INTERNAL_ERROR')
  // Any route may write (a session's or a key's use is recorded): a full disk or another
  // program's lock refuses it (docs/operations.md, "A full disk").
  kinds.add('STORAGE_FULL')
  kinds.add('DATABASE_BUSY')
  return [...kinds]
}

/**
 * VineJS renders a boolean as the list of values it coerces. The API takes
 * JSON booleans, so the document says boolean.
 */
function tidySchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(tidySchema)
  if (!schema || typeof schema !== 'object') return schema
  const object = schema as Record<string, unknown>
  if (Array.isArray(object.enum) && object.enum.includes('on') && object.enum.includes(true) && object.enum.includes(false)) {
    const { enum: _coerced, ...rest } = object
    return { ...rest, type: 'boolean' }
  }
  return Object.fromEntries(Object.entries(object).map(([key, value]) => [key, tidySchema(value)]))
}

function queryParameters(contract: RouteContract): JsonSchema[] {
  if (!contract.query) return []
  const schema = tidySchema(contract.query.toJSONSchema()) as { properties?: Record<string, JsonSchema>; required?: string[] }
  return Object.entries(schema.properties ?? {}).map(([name, property]) => ({
    name,
    in: 'query',
    required: schema.required?.includes(name) ?? false,
    schema: property,
    ...(typeof property.description === 'string' ? { description: property.description } : {}),
  }))
}

function pathParameters(contract: RouteContract): JsonSchema[] {
  return [...contract.path.matchAll(/:([A-Za-z0-9_]+)/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    schema: { type: 'string' },
    description: contract.params?.[name] ?? `Identifier (${name})`,
  }))
}

function responsesOf(contract: RouteContract, registry: RouteRegistry): Record<string, JsonSchema> {
  const requestIdHeader = { 'X-Request-Id': { $ref: '#/components/headers/XRequestId' } }
  const { answer } = contract
  const responses: Record<string, JsonSchema> = {
    [answer.status]: {
      description: answer.description,
      headers: requestIdHeader,
      ...(answer.schema
        ? {
            content: {
              [answer.contentType ?? 'application/json']: { schema: answer.schema },
              ...Object.fromEntries(Object.entries(answer.alternatives ?? {}).map(([type, schema]) => [type, { schema }])),
            },
          }
        : {}),
    },
  }
  const byStatus = new Map<number, ApiErrorKind[]>()
  for (const kind of errorsOf(contract, registry)) {
    const status = errorCatalogue.get(kind).status
    byStatus.set(status, [...(byStatus.get(status) ?? []), kind])
  }
  for (const [status, kinds] of [...byStatus].sort(([a], [b]) => a - b)) {
    const codes = [...new Set(kinds.map((kind) => errorCatalogue.get(kind).code))]
    responses[status] = {
      description: kinds.map((kind) => `${errorCatalogue.get(kind).code}: ${errorCatalogue.get(kind).description}`).join('. '),
      headers: status === 429 || status === 503 ? { ...requestIdHeader, 'Retry-After': { $ref: '#/components/headers/RetryAfter' } } : requestIdHeader,
      'x-error-codes': codes,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    }
  }
  return responses
}

function operationOf(contract: RouteContract, registry: RouteRegistry): JsonSchema {
  const { access } = contract
  const accessNote =
    access.kind === 'public'
      ? 'No authentication.'
      : `${access.scope ? `API key scope: ${access.scope} or higher.` : 'Refused to every API key: a signed-in account is needed.'} Dashboard roles: ${access.roles.join(', ')}.`
  return {
    operationId: contract.operationId,
    summary: contract.summary,
    description: [contract.description, accessNote].filter(Boolean).join('\n\n'),
    tags: [contract.tag],
    security: access.kind === 'public' ? [] : [...registry.securitySchemes.keys()].map((name) => ({ [name]: [] })),
    ...(access.kind === 'protected'
      ? { 'x-scope': access.scope, 'x-roles': access.roles, ...(access.permission ? { 'x-permission': access.permission } : {}) }
      : {}),
    // Every code the operation can answer in one list; each response repeats those of its status.
    'x-error-codes': [...new Set(errorsOf(contract, registry).map((kind) => errorCatalogue.get(kind).code))].sort(),
    parameters: [
      ...pathParameters(contract),
      ...queryParameters(contract),
      ...Object.entries(contract.headers ?? {}).map(([name, header]) => ({ name, in: 'header', required: false, ...header })),
    ],
    ...(contract.body
      ? {
          requestBody: {
            required: true,
            content: { 'application/json': { schema: tidySchema(contract.body.toJSONSchema()) } },
          },
        }
      : {}),
    ...(contract.upload
      ? {
          requestBody: {
            required: true,
            content: {
              'multipart/form-data': {
                schema: {
                  type: 'object',
                  required: [contract.upload.field],
                  properties: { [contract.upload.field]: { type: 'string', format: 'binary', description: contract.upload.description } },
                },
              },
            },
          },
        }
      : {}),
    responses: responsesOf(contract, registry),
  }
}

/** The OpenAPI 3.1 document served at /api-docs/openapi.json, built from the route contracts. */
export function buildOpenApiDocument(registry: RouteRegistry, info: DocumentInfo): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {}
  for (const contract of registry.contracts) {
    const path = toOpenApiPath(contract.path)
    paths[path] ??= {}
    paths[path][contract.method.toLowerCase()] = operationOf(contract, registry)
  }
  const tags = [...new Set(registry.contracts.map((contract) => contract.tag))]
    .sort()
    .map((name) => ({ name, ...(registry.tags.has(name) ? { description: registry.tags.get(name) } : {}) }))
  return {
    openapi: '3.1.0',
    info: {
      title: info.title,
      version: info.version,
      description: info.description,
    },
    servers: [{ url: '/', description: 'This gateway' }],
    tags,
    paths,
    components: {
      securitySchemes: Object.fromEntries(registry.securitySchemes),
      schemas: tidySchema({ Error: errorObjectSchema, ...Object.fromEntries(registry.schemas) }),
      headers: {
        XRequestId: {
          required: true,
          description: 'Identifies the request in the gateway logs; equal to error.requestId',
          schema: { type: 'string' },
        },
        RetryAfter: {
          required: false,
          description: 'Seconds to wait before trying again: always sent with RATE_LIMITED, STORAGE_FULL and DATABASE_BUSY',
          schema: { type: 'string', pattern: '^[0-9]+$' },
        },
      },
    },
    // The dashboard's live channels are not HTTP operations: each channel's payload schema, by
    // name, as the modules declare them (docs/live-channels.md).
    'x-live-channels': liveChannelSchemas(),
  }
}
