/**
 * The agent's WebSocket protocol, as docs/device-protocol.md states it: where phones connect and
 * the close codes the gateway uses.
 */
export const DEVICE_SOCKET_PATH = '/api/v1/devices/socket'

/** A frame is at most this many bytes of JSON; a larger one closes the socket with 1009. */
export const MAX_FRAME_BYTES = 256 * 1024

/** Close codes the protocol defines. */
export const CLOSE = { silent: 1000, stopping: 1001, unpaired: 4001, replaced: 4002, invalidFrame: 4003 } as const

/** A frame from a phone: a type, an id, and the fields of its type. */
export interface UpFrame {
  type: string
  id: string
  [field: string]: unknown
}
