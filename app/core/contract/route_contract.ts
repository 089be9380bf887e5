import type { VineValidator } from '@vinejs/vine'
import type { LazyImport, Constructor } from '@adonisjs/core/types/http'
import type { RouteAccess } from '#core/http/access'
import type { ApiErrorKind } from '#core/http/api_error'

export type JsonSchema = Record<string, unknown>
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'

export interface RouteAnswer {
  status: number
  description: string
  /** JSON schema of the answer body; omitted for an empty answer (204). */
  schema?: JsonSchema
  /** Defaults to application/json. */
  contentType?: string
  /** Other media types the same answer may take (an export as CSV or JSON), with their schemas. */
  alternatives?: Record<string, JsonSchema>
}

/**
 * Everything the gateway says about one endpoint. The router and the OpenAPI document are both
 * built from these, so the published contract cannot drift from what answers.
 */
export interface RouteContract {
  method: HttpMethod
  /** AdonisJS pattern, e.g. `/api/v1/webhooks/:id`. */
  path: string
  operationId: string
  summary: string
  description?: string
  tag: string
  access: RouteAccess
  /** Validators the controller applies; their JSON schema documents the request. */
  body?: VineValidator<any, any>
  query?: VineValidator<any, any>
  /** Description of each `:param` in the path. */
  params?: Record<string, string>
  /**
   * A file upload instead of a JSON body: `multipart/form-data` with the file in `field`, up to
   * `maxBytes` (the 2 MiB cap of JSON bodies does not apply). The controller streams the part.
   */
  upload?: { field: string; maxBytes: number; description: string }
  /** Request headers the route reads (beyond authentication), documented as parameters. */
  headers?: Record<string, { description: string; schema: JsonSchema }>
  answer: RouteAnswer
  /** Refusals specific to this route; the common ones (auth, body, 500) are added for all. */
  errors?: ApiErrorKind[]
  handler: [LazyImport<Constructor<any>>, string]
}

export function defineRoutes(contracts: RouteContract[]): RouteContract[] {
  return contracts
}
