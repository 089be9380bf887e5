import type { IncomingMessage } from 'node:http'
import type { Socket } from 'node:net'

/** How long a refused connection keeps reading (and discarding) what the client still sends. */
export const LINGER_MS = 2_000

/** How much it reads in that time at most; past it, it stops reading and only waits. */
export const LINGER_BYTES = 64 * 1024 * 1024

const CHECK_EVERY_MS = 100

/** Sockets closing after a refusal: a request parsed on them after the answer is not served. */
const lingering = new WeakSet<object>()

export function isLingering(socket: object | null | undefined): boolean {
  return socket ? lingering.has(socket) : false
}

/**
 * Closes the connection of a request answered before its body was read (413), without the
 * connection reset that would lose the answer.
 *
 * Node ends such a connection (`Connection: close`) with `socket.destroySoon()`: the answer, a
 * FIN, then the socket is closed at once. The client is often still sending the body; closing a
 * socket with unread bytes in its receive buffer makes the kernel send RST, and a client whose
 * next write meets that reset (EPIPE, ECONNRESET) drops the answer it has not read yet: under
 * load, the client saw a reset instead of the 413. Here the answer and the FIN go out as before,
 * then the socket goes on reading and discarding what arrives (the HTTP parser skips the rest of
 * the declared body) until the client closes its side, for at most LINGER_MS; past LINGER_BYTES
 * it only stops reading. The client has that long to read the answer before any reset.
 *
 * Called while the request is handled, before the answer is written.
 */
function closeAfterAnswerWithoutReset(socket: Socket): void {
  if (lingering.has(socket)) return
  lingering.add(socket)
  socket.destroySoon = function destroySoonLingering(this: Socket) {
    if (this.destroyed) return
    if (this.writable) this.end()
    const start = this.bytesRead
    const watch = setInterval(() => {
      if (this.bytesRead - start > LINGER_BYTES) this.pause()
    }, CHECK_EVERY_MS)
    const deadline = setTimeout(() => this.destroy(), LINGER_MS)
    watch.unref()
    deadline.unref()
    const stop = () => {
      clearInterval(watch)
      clearTimeout(deadline)
    }
    this.once('close', stop)
    // The client closed its side: everything it sent has been read, closing sends no reset.
    this.once('end', () => (this.writableFinished ? this.destroy() : this.once('finish', () => this.destroy())))
  }
}

/**
 * The connection of a request whose body is refused as too large (413), whether its declared
 * length was over the cap or a chunked body grew past it while read: the answer says
 * `Connection: close` (the unread remainder must not be parsed as a next request), and the
 * connection closes as `closeAfterAnswerWithoutReset` says. A body the parser gave up on part-way
 * was left paused, and a paused request stops its socket reading: it is resumed, so that what
 * the client still sends is read and discarded, and the client's own close ends the connection
 * rather than a reset.
 *
 * Called by the exception handler for every 413, before the answer is written.
 */
export function closeAfterRefusedBody(request: IncomingMessage, setHeader: (name: string, value: string) => void): void {
  setHeader('Connection', 'close')
  closeAfterAnswerWithoutReset(request.socket)
  if (request.isPaused() && !request.complete) request.resume()
}
