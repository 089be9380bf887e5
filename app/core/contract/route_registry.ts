import type { HttpContext, Router } from '@adonisjs/core/http'
import type { NextFn } from '@adonisjs/core/types/http'
import type { AccessGuard, ProtectedAccess } from '#core/http/access'
import type { ApiErrorKind } from '#core/http/api_error'
import { allowUpload, requireJsonBody, requireMultipartBody } from '#core/http/body_guard_middleware'
import { readRawJsonBody } from '#core/http/raw_json_body'
import { refuseUnknownFields, refuseUnknownQuery } from '#core/contract/unknown_fields'
import { requireObjectBody } from '#core/contract/object_body'
import { pathNamingMessages } from '#core/contract/validation_messages'
import { refuseIllFormedText } from '#core/contract/well_formed_text'
import { refuseMisplacedNulls } from '#core/contract/null_fields'
import type { JsonSchema, RouteContract } from '#core/contract/route_contract'
import type { SchemaRef } from '#core/contract/typed_schema'
import type { Constructor } from '@adonisjs/core/types/http'

export type RouteMiddleware = (ctx: HttpContext, next: NextFn) => Promise<unknown>

/**
 * The one list of endpoints. Modules add their route contracts from their provider; the core
 * provider mounts them on the router and the OpenAPI builder reads the same list.
 */
export class RouteRegistry {
  readonly #contracts: RouteContract[] = []
  readonly #schemas = new Map<string, JsonSchema>()
  readonly #tags = new Map<string, string>()
  readonly #beforeAccess: RouteMiddleware[] = []
  readonly #libraryRoutes: Array<(router: Router, bodyParser: any) => void> = []
  #generation = 0

  /** Refusals every protected route can answer; the auth module adds its own. */
  readonly protectedRouteErrors = new Set<ApiErrorKind>(['MISSING_API_KEY', 'INVALID_API_KEY', 'FORBIDDEN_SCOPE'])
  /** Refusals every protected write can answer (the license gate adds LICENSE_BLOCKED). */
  readonly writeRouteErrors = new Set<ApiErrorKind>()
  /** OpenAPI security schemes; core has the API key, the auth module adds the session. */
  readonly securitySchemes = new Map<string, JsonSchema>([
    ['ApiKey', { type: 'apiKey', in: 'header', name: 'X-API-KEY', description: 'An API key secret. Never put it in a URL' }],
  ])

  add(contracts: readonly RouteContract[]): void {
    for (const contract of contracts) {
      const clash = this.#contracts.find((known) => known.method === contract.method && known.path === contract.path)
      if (clash) throw new Error(`Two route contracts for ${contract.method} ${contract.path}`)
      if (this.#contracts.some((known) => known.operationId === contract.operationId)) {
        throw new Error(`Two route contracts with operationId ${contract.operationId}`)
      }
      this.#contracts.push(contract)
    }
  }

  /** A named schema published under components.schemas (referenced as #/components/schemas/Name). */
  addSchema<const S extends JsonSchema>(name: string, schema: S): SchemaRef<S> {
    this.#schemas.set(name, schema)
    return { $ref: `#/components/schemas/${name}` }
  }

  /**
   * Middleware every registry route runs before its access check (the auth module adds the
   * dashboard session there). Must be added before the routes are mounted.
   */
  useBeforeAccess(middleware: RouteMiddleware): void {
    this.#beforeAccess.push(middleware)
  }

  /** A tag (one per module) and the sentence that introduces it in the reference. */
  describeTag(name: string, description: string): void {
    this.#tags.set(name, description)
  }

  get tags(): ReadonlyMap<string, string> {
    return this.#tags
  }

  get contracts(): readonly RouteContract[] {
    return this.#contracts
  }

  get schemas(): ReadonlyMap<string, JsonSchema> {
    return this.#schemas
  }

  /**
   * Registers every contract on the router. Access is checked before the body is read, so an
   * unknown caller never makes the gateway parse a body.
   */
  /**
   * Routes a library registers itself (transmit's stream), outside the API and its contract:
   * mounted with the others, given the body parser to attach where they read a body.
   */
  addLibraryRoutes(mountRoutes: (router: Router, bodyParser: any) => void): void {
    this.#libraryRoutes.push(mountRoutes)
  }

  async mount(router: Router, resolveGuard: () => Promise<AccessGuard>, bodyParser: any, makeController: ControllerMaker): Promise<void> {
    for (const mountRoutes of this.#libraryRoutes) mountRoutes(router, bodyParser)
    for (const contract of [...this.#contracts].sort(byPathSpecificity)) {
      const route = router.route(contract.path, [contract.method], await this.#handlerOf(contract, makeController))
      route.as(contract.operationId)
      route.use([...this.#beforeAccess])
      if (contract.access.kind === 'protected') {
        const routeAccess: ProtectedAccess = contract.access
        route.use(async (ctx: HttpContext, next: NextFn) => {
          const guard = await resolveGuard()
          ctx.caller = await guard.authorize(ctx, routeAccess)
          return next()
        })
      }
      if (contract.upload) {
        allowUpload(contract.method, contract.path, contract.upload.maxBytes)
        route.use([requireMultipartBody, bodyParser, validateInput(contract)])
        continue
      }
      const bodySchema = contract.body ? (contract.body.toJSONSchema() as JsonSchema) : NO_FIELDS
      route.use([requireJsonBody, contract.rawBody ? readRawJsonBody : bodyParser, requireObjectBody(bodySchema), refuseIllFormedText])
      route.use([refuseUnknownFields(bodySchema), refuseMisplacedNulls(bodySchema), validateInput(contract)])
    }
  }

  /**
   * The next request of each route makes its controller again. A test calls it when it swaps a
   * service in the container (tests/bootstrap.ts), so that the controllers, made once, are built
   * with the swapped service, as services resolved for each use are.
   */
  remakeControllers(): void {
    this.#generation++
  }

  /**
   * A route's handler: a function the router calls with the context, in place of
   * `[Controller, 'method']`, which the container would make and call for each request, its
   * action's parameters resolved each time. The controller is made at the route's first request,
   * after every provider has started, and kept; made again only if making it failed (or after
   * `remakeControllers`). Its services come through its constructor, so an action taking
   * services as parameters is refused at start.
   */
  async #handlerOf(contract: RouteContract, makeController: ControllerMaker) {
    const [importController, method] = contract.handler
    const Controller = (await importController()).default
    const injections = (Controller as { containerInjections?: Record<string, { dependencies: unknown[] } | undefined> }).containerInjections
    if (injections?.[method]?.dependencies.length) {
      throw new Error(`${Controller.name}.${method} takes services as parameters: a controller takes them in its constructor`)
    }
    let controller: Promise<any> | undefined
    let madeIn = this.#generation
    return (ctx: HttpContext) => {
      if (madeIn !== this.#generation) {
        controller = undefined
        madeIn = this.#generation
      }
      controller ??= makeController(Controller).catch((error) => {
        controller = undefined
        throw error
      })
      return controller.then((made) => made[method](ctx))
    }
  }
}

export type ControllerMaker = (controller: Constructor<any>) => Promise<any>

/**
 * Applies the contract's validators once, after the body guards, and hands the typed result to
 * the handler (`routeInputs` in route_contract.ts). The query is validated before the body. An
 * upload's body is the file part, which its handler streams: only its query is validated here.
 */
function validateInput(contract: RouteContract): RouteMiddleware {
  const { body, query, validationMeta } = contract
  // The gateway's own API names every parameter it takes; the SMSGate app's routes take what the
  // app sends (a client we do not write), as does anything outside /api/v1.
  const knownQuery = contract.path.startsWith('/api/v1/') ? queryParameters(contract) : null
  return async (ctx, next) => {
    if (knownQuery) refuseUnknownQuery(ctx.request.qs(), knownQuery)
    const options = { messagesProvider: pathNamingMessages, ...(validationMeta ? { meta: await validationMeta(ctx) } : {}) }
    ctx.routeInput = {
      query: query ? await query.validate(ctx.request.qs(), options) : undefined,
      body: body && !contract.upload ? await body.validate(ctx.request.body(), options) : undefined,
    }
    return next()
  }
}

/** The query parameters a route's contract names (none without a query validator). */
function queryParameters(contract: RouteContract): string[] {
  return Object.keys((contract.query?.toJSONSchema() as JsonSchema | undefined)?.properties ?? {})
}

/** The body of a route that takes none: any field in it is refused, not ignored. */
const NO_FIELDS: JsonSchema = { type: 'object', properties: {}, additionalProperties: false }

/**
 * The router takes the first pattern that matches, so a literal segment must be registered
 * before a parameter in the same place (`/contacts/export` before `/contacts/:id`), whichever
 * module added it first. Paths sort with every parameter after every literal.
 */
function byPathSpecificity(a: RouteContract, b: RouteContract): number {
  const key = (path: string) => path.replace(/:[^/]+/g, '\uffff')
  const [left, right] = [key(a.path), key(b.path)]
  return left < right ? -1 : left > right ? 1 : 0
}
