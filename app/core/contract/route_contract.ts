import type { VineValidator } from '@vinejs/vine'
import type { Infer } from '@vinejs/vine/types'
import type { HttpContext } from '@adonisjs/core/http'
import type { LazyImport, Constructor } from '@adonisjs/core/types/http'
import type { RouteAccess } from '#core/http/access'
import type { ApiErrorKind } from '#core/http/api_error'

export type JsonSchema = Record<string, unknown>

/** A VineJS validator, or one wrapped by `withRefusals` (refusals.ts). */
export type InputValidator = VineValidator<any, any> | { validate(data: unknown, options: any): Promise<unknown>; toJSONSchema(): unknown }
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
  /**
   * Validators of the body and the query string, applied once by the router before the handler
   * runs (it reads the result with `routeInputs`); their JSON schema documents the request.
   */
  body?: InputValidator
  query?: InputValidator
  /**
   * The metadata a validator declared with `vine.withMetaData` needs (a setting, the clock),
   * resolved for each request.
   */
  validationMeta?: (ctx: HttpContext) => Promise<object>
  /** Description of each `:param` in the path. */
  params?: Record<string, string>
  /**
   * A file upload instead of a JSON body: `multipart/form-data` with the file in `field`, up to
   * `maxBytes` (the 2 MiB cap of JSON bodies does not apply). The controller streams the part.
   */
  upload?: { field: string; maxBytes: number; description: string }
  /**
   * The JSON body's bytes are kept as sent (`ctx.rawBody`) besides being parsed: a route that
   * checks a signature over the raw body (a phone's signed webhook). The body parser is not
   * used; the same cap, content type and JSON rules apply.
   */
  rawBody?: boolean
  /** Request headers the route reads (beyond authentication), documented as parameters. */
  headers?: Record<string, { description: string; schema: JsonSchema }>
  answer: RouteAnswer
  /** Refusals specific to this route; the common ones (auth, body, 500) are added for all. */
  errors?: readonly ApiErrorKind[]
  /**
   * The controller and its action. The controller is made once, at the route's first request,
   * with the services of its constructor, and kept (route_registry.ts); an action takes the
   * context only, and passes the caller to the services that write in its name
   * (docs/modules.md, Getting a service).
   */
  handler: readonly [LazyImport<Constructor<any>>, string]
}

/**
 * A module's route contracts, their types kept (each `operationId`, each validator), so a
 * handler reads its validated input typed from its own contract (`routeInputs`).
 */
export function defineRoutes<const T extends readonly RouteContract[]>(contracts: T): T {
  return contracts
}

/**
 * A body the contract documents with `validator` but the handler's service checks itself, where
 * the check is more than one validator can say (settings: section by section, some answering
 * 422). The router passes it on as sent.
 */
export function checkedByHandler(validator: VineValidator<any, any>) {
  return { validate: async (data: unknown): Promise<unknown> => data, toJSONSchema: () => validator.toJSONSchema() }
}

type ValidatedBy<V> = V extends VineValidator<infer S, any> ? Infer<S> : V extends { validate(...args: any[]): Promise<infer O> } ? O : undefined

/** What the router validated for a route: its body and query, typed by their validators. */
export interface RouteInput<C> {
  body: C extends { body: infer V } ? ValidatedBy<V> : undefined
  query: C extends { query: infer V } ? ValidatedBy<V> : undefined
}

declare module '@adonisjs/core/http' {
  interface HttpContext {
    /** Set by the router once the route contract's validators passed (route_registry.ts). */
    routeInput?: { body: unknown; query: unknown }
  }
}

/**
 * The reader of a module's validated input: `const input = routeInputs<MessageRoutes>()` in a
 * controller, then `input(ctx, 'sendMessages').body` in the handler, typed from that contract.
 * The name is checked against the route answering, so a handler cannot read another route's
 * input by mistake.
 */
export function routeInputs<Routes extends readonly RouteContract[]>() {
  return <Id extends Routes[number]['operationId']>(ctx: HttpContext, operationId: Id): RouteInput<Extract<Routes[number], { operationId: Id }>> => {
    if (ctx.route?.name !== operationId || !ctx.routeInput) {
      throw new Error(`The handler of ${ctx.route?.name ?? 'an unnamed route'} asked for the input of ${operationId}`)
    }
    return ctx.routeInput as RouteInput<Extract<Routes[number], { operationId: Id }>>
  }
}
