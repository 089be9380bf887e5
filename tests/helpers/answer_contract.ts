import { AssertionError } from 'node:assert'
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js'
import formatsPlugin from 'ajv-formats'
import app from '@adonisjs/core/services/app'
import { ApiClient, type ApiResponse } from '@japa/api-client'
import { RouteRegistry } from '#core/contract/route_registry'
import { buildOpenApiDocument } from '#core/contract/openapi_document'
import { openApiInfo } from '#core/system/api_docs_controller'

type Json = Record<string, any>

/** One answer as it came back, whatever client made the request. */
export interface Answer {
  method: string
  /** Absolute URL or path; a query string is ignored. */
  url: string
  status: number
  /** The Content-Type header, if any. */
  contentType?: string
  /** Parsed JSON for a JSON answer, the text for a text answer, anything for a binary one. */
  body: unknown
  /** Whether the answer carried a body at all. */
  hasBody: boolean
  /** Response headers, names in lower case; when given, the documented ones must be present. */
  headers?: Record<string, unknown>
}

interface Operation {
  method: string
  label: string
  template: string
  pattern: RegExp
  /** Sorts literal segments before parameters, as the router matches them. */
  specificity: string
  responses: Record<string, Json>
  /** The operation's `x-error-codes`: every code it can answer. */
  errorCodes: string[]
}

// ajv-formats is a CommonJS module whose `default` is the plugin.
const addFormats = ((formatsPlugin as any).default ?? formatsPlugin) as (ajv: Ajv2020) => Ajv2020

const COMPONENT_BASE = 'https://contract.test/components/schemas/'

/** Keywords whose value maps names to schemas: the map itself is not a schema to close. */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'dependentSchemas'])

/** Media types whose body is JSON and is checked against its schema. */
function isJsonType(type: string): boolean {
  return type === 'application/json' || /^application\/[^;]+\+json$/.test(type)
}

function mediaTypeOf(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0].trim().toLowerCase()
}

/**
 * The document's schemas leave objects open, as a published API should. The tests close them:
 * a field the gateway answers but the document does not name is drift, and a client typed from
 * the document would never see it. `$ref`s are pointed at the registered components.
 */
function closedForTests(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closedForTests)
  if (!schema || typeof schema !== 'object') return schema
  const copy: Json = {}
  for (const [key, value] of Object.entries(schema as Json)) {
    if (key === '$ref' && typeof value === 'string' && value.startsWith('#/components/schemas/')) {
      copy.$ref = COMPONENT_BASE + value.slice('#/components/schemas/'.length)
    } else if (SCHEMA_MAPS.has(key) && value && typeof value === 'object') {
      copy[key] = Object.fromEntries(Object.entries(value as Json).map(([name, property]) => [name, closedForTests(property)]))
    } else {
      copy[key] = closedForTests(value)
    }
  }
  const open = 'additionalProperties' in copy || 'unevaluatedProperties' in copy || 'patternProperties' in copy
  if (copy.properties && !open) copy.unevaluatedProperties = false
  return copy
}

function describeErrors(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? [])
    .map((error) => {
      const extra = error.keyword === 'unevaluatedProperties' ? ` (${error.params.unevaluatedProperty})` : ''
      const values = error.keyword === 'enum' ? ` ${JSON.stringify(error.params.allowedValues)}` : ''
      const schemaPath = error.schemaPath.replace(COMPONENT_BASE, '#/components/schemas/')
      return `  at ${error.instancePath || '(body)'}: ${error.message}${values}${extra} [schema ${schemaPath}]`
    })
    .join('\n')
}

/**
 * Every answer of the API checked against the OpenAPI document the gateway publishes: the
 * operation (method + path template) must document the status, the body must match that
 * status's schema, and an error's code must be one the operation lists for that status.
 */
export class AnswerContract {
  readonly #operations: Operation[] = []
  readonly #ajv: Ajv2020
  readonly #validators = new Map<string, ValidateFunction>()
  readonly #errorSchema: Json

  constructor(readonly document: Json) {
    this.#ajv = new Ajv2020({ allErrors: true, strict: true, strictTypes: false, allowUnionTypes: true, strictRequired: true })
    addFormats(this.#ajv)
    // OpenAPI's own vocabulary (OAS 3.1 base dialect): annotations, nothing to check.
    this.#ajv.addVocabulary(['example', 'discriminator', 'xml', 'externalDocs'])
    // An OpenAPI format with no meaning for a JSON value.
    this.#ajv.addFormat('binary', true)
    for (const [name, schema] of Object.entries<Json>(document.components?.schemas ?? {})) {
      this.#ajv.addSchema(closedForTests(schema) as Json, COMPONENT_BASE + name)
    }
    this.#errorSchema = { $ref: '#/components/schemas/Error' }
    for (const [template, methods] of Object.entries<Json>(document.paths ?? {})) {
      for (const [method, operation] of Object.entries<Json>(methods)) {
        const pattern = new RegExp(
          '^' + template.split(/\{[^}]+\}/).map((part) => part.replace(/[.*+?^$()|[\]\\]/g, '\\$&')).join('[^/]+') + '$'
        )
        this.#operations.push({
          method: method.toUpperCase(),
          label: `${method.toUpperCase()} ${template} (${operation.operationId})`,
          template,
          pattern,
          specificity: template.replace(/\{[^}]+\}/g, '\uffff'),
          responses: operation.responses ?? {},
          errorCodes: operation['x-error-codes'] ?? [],
        })
      }
    }
    this.#operations.sort((a, b) => (a.specificity < b.specificity ? -1 : a.specificity > b.specificity ? 1 : 0))
  }

  /** The operation the router would give this method and path, if the document has one. */
  operationFor(method: string, url: string): Operation | undefined {
    const wanted = method.toUpperCase() === 'HEAD' ? 'GET' : method.toUpperCase()
    let path = new URL(url, 'http://gateway.test').pathname
    if (path.length > 1) path = path.replace(/\/+$/, '')
    return this.#operations.find((operation) => operation.method === wanted && operation.pattern.test(path))
  }

  #validator(key: string, schema: Json): ValidateFunction {
    let validate = this.#validators.get(key)
    if (!validate) {
      validate = this.#ajv.compile(closedForTests(schema) as Json)
      this.#validators.set(key, validate)
    }
    return validate
  }

  /** What is wrong with an answer; empty when it matches the document. */
  problemsWith(answer: Answer): string[] {
    const path = new URL(answer.url, 'http://gateway.test').pathname
    const operation = this.operationFor(answer.method, answer.url)
    const problems: string[] = []
    if (!operation) {
      // Unknown routes answer 404 in the error format; anything else under /api is undocumented.
      if (answer.status >= 400 && isJsonType(mediaTypeOf(answer.contentType))) {
        const validate = this.#validator('error', this.#errorSchema)
        if (!validate(answer.body)) problems.push(`the error body does not match the Error schema:\n${describeErrors(validate.errors)}`)
      } else if (path.startsWith('/api/') && answer.status < 400) {
        problems.push('the document has no such operation')
      }
      return problems.map((problem) => `${answer.method} ${path} → ${answer.status}: ${problem}`)
    }

    const prefix = `${operation.label} answered ${answer.status}`
    const response = operation.responses[String(answer.status)]
    if (!response) {
      const documented = Object.keys(operation.responses).join(', ')
      const code = (answer.body as Json | undefined)?.error?.code
      return [`${prefix}${code ? ` ${code}` : ''}, a status its document does not list (documented: ${documented})`]
    }
    // The conventions promise the headers the document marks required (X-Request-Id) on every
    // answer; an optional one (Retry-After on a 503 that is not about time) may be absent.
    if (answer.headers) {
      for (const [name, header] of Object.entries<Json>(response.headers ?? {})) {
        const definition = header.$ref ? this.document.components?.headers?.[String(header.$ref).split('/').pop()!] : header
        if (definition?.required && answer.headers[name.toLowerCase()] === undefined) problems.push(`${prefix} without its documented ${name} header`)
      }
    }
    const content: Json | undefined = response.content
    const mediaType = mediaTypeOf(answer.contentType)
    // A HEAD answer has the headers of the GET and no body to check.
    if (answer.method.toUpperCase() === 'HEAD') return problems
    if (!content) {
      if (answer.hasBody) problems.push(`${prefix} with a body (${mediaType || 'no type'}), but the document says no content`)
      return problems
    }
    const media = content[mediaType]
    if (!media) {
      return [...problems, `${prefix} as ${mediaType || 'no Content-Type'}; the document lists ${Object.keys(content).join(', ')}`]
    }
    if (media.schema && (isJsonType(mediaType) || (mediaType.startsWith('text/') && media.schema.type === 'string'))) {
      const validate = this.#validator(`${operation.label} ${answer.status} ${mediaType}`, media.schema)
      if (!validate(answer.body)) {
        problems.push(`${prefix}: the body does not match responses.${answer.status}.content['${mediaType}'].schema\n${describeErrors(validate.errors)}`)
      }
    }
    const code = answer.status >= 400 ? (answer.body as Json | undefined)?.error?.code : undefined
    if (typeof code === 'string') {
      const underStatus: string[] = response['x-error-codes'] ?? []
      if (!operation.errorCodes.includes(code)) {
        problems.push(`${prefix} ${code}, a code its x-error-codes do not list (listed: ${operation.errorCodes.join(', ') || 'none'})`)
      } else if (!underStatus.includes(code)) {
        problems.push(`${prefix} ${code}, a code its x-error-codes do not list under ${answer.status} (listed: ${underStatus.join(', ') || 'none'})`)
      }
    }
    return problems
  }

  /** Throws an assertion error naming operation, status and schema path when the answer drifts. */
  assertMatches(answer: Answer): void {
    const problems = this.problemsWith(answer)
    if (problems.length === 0) return
    throw new AssertionError({ message: `Answer does not match the OpenAPI document:\n${problems.join('\n')}` })
  }
}

let contract: AnswerContract | undefined

/** The contract of the booted app, built once per test run from its route registry. */
export async function answerContract(): Promise<AnswerContract> {
  if (!contract) {
    const registry = await app.container.make(RouteRegistry)
    contract = new AnswerContract(buildOpenApiDocument(registry, openApiInfo))
  }
  return contract
}

/** An answer of the Japa api client in the checker's terms. */
export function answerOfApiResponse(response: ApiResponse): Answer {
  const sent = response.request.request as unknown as { method: string; url: string }
  const raw = response.response as unknown as { text?: string; body?: unknown; headers: Record<string, string> }
  const contentType = response.header('content-type') ?? undefined
  const mediaType = mediaTypeOf(contentType)
  const length = Number(response.header('content-length') ?? Number.NaN)
  const hasBody = Number.isNaN(length) ? Boolean(raw.text) || Buffer.isBuffer(raw.body) : length > 0
  return {
    method: sent.method,
    url: sent.url,
    status: response.status(),
    contentType,
    body: isJsonType(mediaType) ? response.body() : mediaType.startsWith('text/') ? response.text() : raw.body,
    hasBody,
    headers: response.headers(),
  }
}

let installed = false

/**
 * Every request a functional test makes through the api client (`client.get(...)` and the
 * others) has its answer checked before the test sees it: a drift fails that request, and with
 * it the test that made it.
 */
export async function checkEveryApiClientAnswer(): Promise<void> {
  if (installed) return
  installed = true
  const checker = await answerContract()
  ApiClient.teardown((response) => {
    // A followed redirect answers for another address: nothing of this operation to check.
    if ((response.response as unknown as { redirects?: string[] }).redirects?.length) return
    checker.assertMatches(answerOfApiResponse(response))
  })
}

/**
 * `fetch` with the same check, for tests that need a raw client (a download streamed as bytes,
 * a separate gateway process): the answer is read once here and handed back re-readable.
 */
export async function checkedFetch(input: string | URL, init?: RequestInit): Promise<Response> {
  const response = await fetch(input, { redirect: 'manual', ...init })
  const bytes = Buffer.from(await response.arrayBuffer())
  const contentType = response.headers.get('content-type') ?? undefined
  const mediaType = mediaTypeOf(contentType)
  let body: unknown = bytes
  if (isJsonType(mediaType)) body = bytes.length ? JSON.parse(bytes.toString('utf8')) : undefined
  else if (mediaType.startsWith('text/')) body = bytes.toString('utf8')
  ;(await answerContract()).assertMatches({
    method: init?.method ?? 'GET',
    url: String(input),
    status: response.status,
    contentType,
    body,
    hasBody: bytes.length > 0,
    headers: Object.fromEntries(response.headers),
  })
  return new Response(response.status === 204 || response.status === 304 ? null : bytes, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  })
}
