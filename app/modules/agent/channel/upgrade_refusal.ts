import { randomUUID } from 'node:crypto'
import { STATUS_CODES } from 'node:http'
import type { Duplex } from 'node:stream'
import type { ApiError } from '#core/http/api_error'

/**
 * Answers an upgrade it will not make in the API's error format, request id included: before the
 * upgrade there is no HTTP context, so the answer is written on the socket (status and code from
 * the error kind, like every other refusal).
 */
export function refuseUpgrade(socket: Duplex, error: ApiError) {
  const requestId = randomUUID()
  const body = JSON.stringify({ error: { code: error.code, message: error.message, requestId } })
  socket.end(
    `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? ''}\r\nConnection: close\r\n` +
      `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${requestId}\r\n\r\n${body}`
  )
}
