import { request, type RequestOptions } from 'node:https'
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http'

export interface HttpsAnswer {
  status: number
  headers: IncomingHttpHeaders
  text: string
  json: any
}

/**
 * One https call that trusts `ca` only (the CA made by the test), as a phone with that CA
 * installed does; no pooled connection, so each call makes its own handshake.
 */
export function httpsCall(
  url: string,
  options: { ca: Buffer | null; method?: string; headers?: Record<string, string>; body?: unknown }
): Promise<HttpsAnswer> {
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body)
  const headers: Record<string, string> = { accept: 'application/json', ...options.headers }
  if (payload !== undefined) headers['content-type'] = 'application/json'
  const tls: RequestOptions = options.ca ? { ca: options.ca } : {}
  return new Promise((resolve, reject) => {
    const asked = request(url, { method: options.method ?? 'GET', headers, agent: false, ...tls }, (response) => {
      let text = ''
      response.setEncoding('utf8')
      response.on('data', (chunk) => (text += chunk))
      response.on('end', () => {
        let json: any
        try {
          json = text ? JSON.parse(text) : undefined
        } catch {}
        resolve({ status: response.statusCode ?? 0, headers: response.headers, text, json })
      })
    })
    asked.on('error', reject)
    asked.end(payload)
  })
}

/** Opens a streaming GET (an event stream) and hands its answer on once the headers came. */
export function httpsStream(url: string, options: { ca: Buffer; headers?: Record<string, string> }): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const asked = request(url, { headers: options.headers, ca: options.ca, agent: false }, resolve)
    asked.on('error', reject)
    asked.end()
  })
}

/** The cookies an answer set, as a jar, and the headers a dashboard write sends with them. */
export function sessionHeaders(answer: HttpsAnswer): Record<string, string> {
  const lines = ([] as string[]).concat(answer.headers['set-cookie'] ?? [])
  const jar = new Map(lines.map((line) => line.split(';')[0].split(/=(.*)/s).slice(0, 2) as [string, string]))
  return {
    'cookie': [...jar].map(([name, value]) => `${name}=${value}`).join('; '),
    'x-xsrf-token': decodeURIComponent(jar.get('XSRF-TOKEN') ?? ''),
  }
}
