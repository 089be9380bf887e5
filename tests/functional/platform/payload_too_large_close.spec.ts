import { test } from '@japa/runner'
import { connect } from 'node:net'
import { useTestKeys, testKeys } from '#tests/helpers/callers'
import { clearMessaging, messageCount } from '#tests/helpers/messages'
import { MAX_BODY_BYTES } from '#core/http/body_guard_middleware'
import { LINGER_MS } from '#core/http/lingering_close'

const port = Number(process.env.PORT)

interface Outcome {
  /** Everything the server answered before the connection ended. */
  answer: string
  /** The socket error the client saw, if any (ECONNRESET, EPIPE). */
  error?: string
  /** Body bytes the client managed to send. */
  sent: number
}

/**
 * A client that sends a large body, announced by its Content-Length or in chunks of
 * `Transfer-Encoding: chunked` (its size known to no one until it ends), and keeps sending it
 * until the whole answer is in (headers and as many body bytes as Content-Length says; with
 * `untilClosed`, until the connection ends), the server closes, or 15 s pass. It reads what arrived only after `readAfterMs`, as a client on a
 * busy machine does: a reset that arrives in between makes its next write fail (EPIPE,
 * ECONNRESET) and the unread answer is lost. Before the refused connection lingered, many of the
 * late readers' answers were lost that way.
 */
function overSizedUpload(
  size: number,
  readAfterMs: number,
  options: { chunked?: boolean; path?: string; untilClosed?: boolean; multipart?: boolean } = {}
): Promise<Outcome> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1')
    // A busy client reads what arrived a little later than it writes.
    socket.pause()
    setTimeout(() => socket.resume(), readAfterMs)
    const data = Buffer.alloc(64 * 1024, 'a')
    // A chunk of chunked encoding: its size in hex, the bytes, CRLF.
    const chunk = options.chunked ? Buffer.concat([Buffer.from(`${data.length.toString(16)}\r\n`), data, Buffer.from('\r\n')]) : data
    let answer = Buffer.alloc(0)
    let sent = 0
    let error: string | undefined
    let done = false
    const finish = () => {
      if (done) return
      done = true
      clearTimeout(timer)
      socket.destroy()
      resolve({ answer: answer.toString('utf8'), error, sent })
    }
    const timer = setTimeout(finish, 15_000)
    socket.on('data', (received) => {
      answer = Buffer.concat([answer, received])
      if (!options.untilClosed && complete(answer)) finish()
    })
    socket.on('error', (cause: NodeJS.ErrnoException) => {
      error = cause.code ?? cause.message
      finish()
    })
    socket.on('close', finish)
    const pump = () => {
      while (!done && sent < size) {
        sent += data.length
        if (!socket.write(chunk)) return void socket.once('drain', pump)
      }
      if (!done && options.chunked) socket.write('0\r\n\r\n')
    }
    const length = options.chunked ? 'Transfer-Encoding: chunked' : `Content-Length: ${size}`
    const type = options.multipart ? 'multipart/form-data; boundary=cut' : 'application/json'
    socket.write(
      `${options.path ? 'POST' : 'PATCH'} ${options.path ?? '/api/v1/settings'} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-KEY: ${testKeys.admin}\r\n` +
        `Content-Type: ${type}\r\n${length}\r\n\r\n`
    )
    if (options.multipart) {
      // The file part's head, then the part's bytes: a CSV that never ends.
      const head = Buffer.from('--cut\r\nContent-Disposition: form-data; name="file"; filename="big.csv"\r\nContent-Type: text/csv\r\n\r\nphone\r\n')
      socket.write(options.chunked ? Buffer.concat([Buffer.from(`${head.length.toString(16)}\r\n`), head, Buffer.from('\r\n')]) : head)
    }
    pump()
  })
}

/** A body over the cap, sent whole, then a send on the same connection. */
function pipelinedAfterRefusal(chunked: boolean): Promise<void> {
  const send = JSON.stringify({ to: '+33612345678', body: 'Pipelined after a refusal' })
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1')
    socket.on('data', () => {})
    socket.on('error', () => {})
    socket.on('close', () => resolve())
    const body = Buffer.alloc(MAX_BODY_BYTES + 1, ' ')
    const length = chunked ? 'Transfer-Encoding: chunked' : `Content-Length: ${body.length}`
    socket.write(`PATCH /api/v1/settings HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-KEY: ${testKeys.admin}\r\nContent-Type: application/json\r\n${length}\r\n\r\n`)
    socket.write(chunked ? Buffer.concat([Buffer.from(`${body.length.toString(16)}\r\n`), body, Buffer.from('\r\n0\r\n\r\n')]) : body)
    socket.write(
      `POST /api/v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-KEY: ${testKeys.send}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(send)}\r\n\r\n${send}`
    )
    setTimeout(() => socket.end(), 500)
  })
}

/** Headers and the whole body their Content-Length announces. */
function complete(answer: Buffer): boolean {
  const end = answer.indexOf('\r\n\r\n')
  if (end < 0) return false
  const length = /\r\ncontent-length: *(\d+)/i.exec(answer.subarray(0, end).toString('latin1'))
  return length !== null && answer.length - end - 4 >= Number(length[1])
}

/** What is wrong with one answer, or null when it is a whole 413 in the error format. */
function fault(outcome: Outcome): string | null {
  const { answer, error } = outcome
  if (!answer) return `no answer at all (${error ?? 'closed'})`
  if (!/^HTTP\/1\.1 413 /.test(answer)) return `status line ${JSON.stringify(answer.split('\r\n')[0])}`
  if (!complete(Buffer.from(answer))) return `a cut answer (${error ?? 'closed'})`
  if (!/\r\nconnection: close\r\n/i.test(answer)) return 'no Connection: close'
  try {
    const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))
    if (body?.error?.code !== 'PAYLOAD_TOO_LARGE' || typeof body.error.requestId !== 'string') return `body ${JSON.stringify(body)}`
  } catch {
    return 'a body that is not JSON'
  }
  return null
}

test.group('413 on a declared body over the cap, while the client is still sending', (group) => {
  group.setup(() => useTestKeys())

  test('every one of many concurrent clients announcing 50 MB reads the whole 413 answer', async ({ assert }) => {
    const rounds = Number(process.env.REFUSAL_ROUNDS ?? 6)
    const clients = Number(process.env.REFUSAL_CLIENTS ?? 48)
    const faults: string[] = []
    let total = 0
    for (let round = 0; round < rounds; round++) {
      const outcomes = await Promise.all(Array.from({ length: clients }, (_, index) => overSizedUpload(50 * 1024 * 1024, index % 4 === 0 ? 0 : 50 + ((index * 37) % 550))))
      total += outcomes.length
      for (const outcome of outcomes) {
        const wrong = fault(outcome)
        if (wrong) faults.push(wrong)
      }
    }
    if (faults.length) console.log(`413 refusals lost: ${faults.length} of ${total}`)
    assert.deepEqual(faults, [], `${faults.length} of ${total} clients did not read the whole 413`)
  }).timeout(120_000)

  test('every one of many concurrent clients sending 50 MB in chunks reads the whole 413, then the connection ends without a reset', async ({ assert }) => {
    // The body parser refuses a chunked body once it passes the cap, in the middle of the body.
    // Left paused there, the connection stopped reading and was reset at the keep-alive timeout:
    // a client still sending, or reading only once its body is out, lost the answer.
    const started = Date.now()
    const faults: string[] = []
    const outcomes = await Promise.all(
      Array.from({ length: 16 }, (_, index) => overSizedUpload(50 * 1024 * 1024, index % 4 === 0 ? 0 : 50 + ((index * 37) % 550), { chunked: true, untilClosed: true }))
    )
    for (const outcome of outcomes) {
      const wrong = fault(outcome) ?? (outcome.error ? `the connection ended with ${outcome.error}` : null)
      if (wrong) faults.push(wrong)
    }
    assert.deepEqual(faults, [], `${faults.length} of ${outcomes.length} clients did not read the whole 413 and a clean close`)
    assert.isBelow(Date.now() - started, LINGER_MS + 3_000)
  }).timeout(60_000)

  test('a chunked body past the cap on a route that keeps the bytes as sent is a whole 413 too', async ({ assert }) => {
    // The SMSGate app's signed webhook reads its body itself (rawBody), capped like any JSON body.
    const outcome = await overSizedUpload(50 * 1024 * 1024, 200, { chunked: true, path: '/api/mobile/v1/webhooks/1/not-a-secret', untilClosed: true })
    assert.isNull(fault(outcome), JSON.stringify(outcome.answer.split('\r\n')[0]))
    assert.isUndefined(outcome.error)
  })

  test('a CSV upload sent in chunks past its 20 MiB cap is a whole 413 too', async ({ assert }) => {
    // The file part is streamed to the data folder; at the cap it was cut off there and the
    // multipart parser, its part no longer read, waited: the request hung without an answer.
    const outcome = await overSizedUpload(30 * 1024 * 1024, 200, { chunked: true, multipart: true, path: '/api/v1/contacts/imports', untilClosed: true })
    assert.isNull(fault(outcome), JSON.stringify(outcome.answer.split('\r\n')[0]))
    assert.isUndefined(outcome.error)
  }).timeout(60_000)

  test('a request sent after the refused body on the same connection is not served', async ({ assert }) => {
    // The whole declared body, then a second request: the refused connection answers the first
    // one only, and closes once the client has closed its side.
    const started = Date.now()
    const answer = await new Promise<string>((resolve) => {
      const socket = connect(port, '127.0.0.1')
      let text = ''
      socket.setEncoding('utf8')
      socket.on('data', (data) => (text += data))
      socket.on('error', () => {})
      socket.on('close', () => resolve(text))
      socket.write(
        `PATCH /api/v1/settings HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${MAX_BODY_BYTES + 1}\r\n\r\n`
      )
      socket.write(Buffer.alloc(MAX_BODY_BYTES + 1, ' '))
      socket.write('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n')
      setTimeout(() => socket.end(), 500)
    })
    assert.match(answer, /^HTTP\/1\.1 413 /)
    assert.lengthOf(answer.match(/HTTP\/1\.1 /g) ?? [], 1)
    assert.isBelow(Date.now() - started, 1_500)
  })

  test('a send pipelined after the refused body is not carried out: its answer could never be read', async ({ assert }) => {
    // Had it been served, the message would go out while its caller, never answered, sends it again.
    for (const chunked of [false, true]) {
      await clearMessaging()
      await pipelinedAfterRefusal(chunked)
      assert.equal(await messageCount(), 0, chunked ? 'after a chunked body' : 'after a declared length')
    }
  })

  test('a client that never stops sending is cut off after a bounded time', async ({ assert }) => {
    const started = Date.now()
    const outcome = await new Promise<{ answer: string; ms: number }>((resolve) => {
      // Half-open: the server's FIN does not end this side, which goes on sending.
      const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true })
      let text = ''
      let open = true
      socket.setEncoding('utf8')
      socket.on('data', (data) => (text += data))
      socket.on('error', () => {})
      socket.on('close', () => {
        open = false
        resolve({ answer: text, ms: Date.now() - started })
      })
      socket.write(
        `PATCH /api/v1/settings HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${1024 * 1024 * 1024}\r\n\r\n`
      )
      const chunk = Buffer.alloc(64 * 1024, ' ')
      const pump = () => {
        while (open) if (!socket.write(chunk)) return void socket.once('drain', pump)
      }
      pump()
    })
    assert.match(outcome.answer, /^HTTP\/1\.1 413 /)
    assert.isAbove(outcome.ms, LINGER_MS - 200)
    assert.isBelow(outcome.ms, LINGER_MS + 2_000)
  })
})
