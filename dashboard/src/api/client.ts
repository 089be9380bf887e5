import createClient, { type Middleware } from 'openapi-fetch'
import type { paths } from './schema'

/** The gateway's answer to a refused call: `{error: {code, message, details?, requestId}}`. */
interface ErrorBody {
  error?: { code?: string; message?: string; details?: unknown; requestId?: string }
}

/**
 * A refused or failed API call, with the messages of the fields it names
 * (`details[].field`, as VineJS reports them) so a form shows each beside its field.
 */
export class ApiProblem extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly fields: Record<string, string> = {},
    readonly requestId?: string,
    /** The error's `details` as answered, for what a page reads beyond field messages (`positions` of INVALID_PHONE). */
    readonly details?: unknown
  ) {
    super(message)
  }

  static from(status: number, body: unknown): ApiProblem {
    const error = (body as ErrorBody | undefined)?.error
    if (!error?.code) return new ApiProblem(status, 'UNEXPECTED_ANSWER', `The gateway answered ${status}`)
    const fields: Record<string, string> = {}
    if (Array.isArray(error.details)) {
      for (const detail of error.details as Array<{ field?: unknown; message?: unknown }>) {
        if (typeof detail.field === 'string' && typeof detail.message === 'string' && !(detail.field in fields)) fields[detail.field] = detail.message
      }
    } else if (typeof (error.details as { field?: unknown } | undefined)?.field === 'string') {
      // One named field (INVALID_PHONE, SCHEDULED_AT_IN_PAST): the error's own message is about it.
      fields[(error.details as { field: string }).field] = error.message ?? error.code
    }
    return new ApiProblem(status, error.code, error.message ?? error.code, fields, error.requestId, error.details)
  }
}

/** Any failure as an ApiProblem: a script error becomes one too, so a page shows one kind of message. */
export function asProblem(error: unknown): ApiProblem {
  return error instanceof ApiProblem ? error : new ApiProblem(0, 'UNEXPECTED', 'Something went wrong in the dashboard')
}

export function readCookie(name: string): string | undefined {
  const prefix = `${name}=`
  const found = document.cookie.split('; ').find((part) => part.startsWith(prefix))
  return found === undefined ? undefined : decodeURIComponent(found.slice(prefix.length))
}

/** Writes from a session echo the XSRF-TOKEN cookie, as the gateway's CSRF check asks. */
export function withXsrfHeader(request: Request): Request {
  if (request.method === 'GET' || request.method === 'HEAD') return request
  const token = readCookie('XSRF-TOKEN')
  if (token) request.headers.set('X-XSRF-TOKEN', token)
  return request
}

const xsrf: Middleware = { onRequest: ({ request }) => withXsrfHeader(request) }

/** Typed from the gateway's OpenAPI document: a path, parameter or answer the contract lacks fails the type check. */
export const api = createClient<paths>({ baseUrl: window.location.origin, credentials: 'same-origin' })
api.use(xsrf)

/**
 * The data of a successful call, or an ApiProblem. Network failures become one too, so pages
 * handle a single kind of error.
 */
export async function answer<Data>(pending: Promise<{ data?: Data; error?: unknown; response: Response }>): Promise<Data> {
  let result: { data?: Data; error?: unknown; response: Response }
  try {
    result = await pending
  } catch {
    throw new ApiProblem(0, 'NETWORK', 'The gateway did not answer; check that it is running')
  }
  if (!result.response.ok) throw ApiProblem.from(result.response.status, result.error)
  return result.data as Data
}
