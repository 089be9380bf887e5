import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http'

/** What the fake app does with a message it fetched. */
export type Behaviour = 'deliver' | 'send' | 'process' | 'fail' | 'silence'

export interface HttpAnswer {
  status: number
  headers: Record<string, string | string[] | undefined>
  text: string
  json: any
}

interface LocalMessage {
  id: string
  phoneNumbers: string[]
  simNumber: number
  text: string
  state: string
  states: Record<string, string>
  error?: string
}

/** The app's date format: milliseconds and the phone's own offset (docs/smsgate-app-protocol.md, §1). */
function appDate(at = new Date()): string {
  const shifted = new Date(at.getTime() + 7 * 3_600_000)
  return `${shifted.toISOString().slice(0, 23)}+07:00`
}

/**
 * A fake "SMS Gateway for Android" (SMSGate) app, written from its protocol as read from its
 * sources (docs/smsgate-app-protocol.md): registers by code, opens its event stream with a real
 * HTTP client and reads it as it comes, fetches its messages on connect and on each
 * `MessageEnqueued`, "sends" them and reports Processed, Sent and Delivered with one
 * `PATCH /message` each, as its state worker does. Every request carries the app's User-Agent.
 */
export class FakeSmsgateApp {
  id = ''
  token = ''
  login = ''
  password: string | undefined
  behaviour: Behaviour = 'deliver'
  /** false: the app reads its stream but fetches nothing by itself (a test fetches). */
  fetchOnEvents = true
  failReason = 'Send result: RESULT_ERROR_NO_SERVICE (Failed because service is currently unavailable)'
  /** Every message fetched, by id, as the app keeps them. */
  readonly messages = new Map<string, LocalMessage>()
  /** Every SSE event read: name and data text; comments counted apart. */
  readonly events: Array<{ event: string; data: string }> = []
  keepalives = 0
  /** Every PATCH /message body sent, in order. */
  readonly reports: unknown[] = []
  streamStatus: number | null = null
  streamContentType: string | undefined
  #stream: { request: ClientRequest; response: IncomingMessage | null } | null = null
  #closed: Promise<void> = Promise.resolve()
  readonly #inFlight = new Set<Promise<unknown>>()

  constructor(readonly apiUrl: string) {}

  /** The app's own call: `{apiUrl}{path}`, JSON in and out. */
  call(method: string, path: string, options: { body?: unknown; authorization?: string | null } = {}): Promise<HttpAnswer> {
    const url = new URL(`${this.apiUrl}${path}`)
    const payload = options.body === undefined ? undefined : JSON.stringify(options.body)
    const headers: Record<string, string> = { 'User-Agent': 'me.capcom.smsgateway/1.68.0', Accept: 'application/json' }
    const authorization = options.authorization === undefined ? (this.token ? `Bearer ${this.token}` : null) : options.authorization
    if (authorization) headers.Authorization = authorization
    if (payload !== undefined) {
      headers['Content-Type'] = 'application/json'
      headers['Content-Length'] = String(Buffer.byteLength(payload))
    }
    return new Promise((resolve, reject) => {
      const request = httpRequest(url, { method, headers }, (response) => {
        let text = ''
        response.setEncoding('utf8')
        response.on('data', (chunk) => (text += chunk))
        response.on('end', () => {
          let json: any
          try {
            json = text ? JSON.parse(text) : undefined
          } catch {
            json = undefined
          }
          resolve({ status: response.statusCode ?? 0, headers: response.headers, text, json })
        })
      })
      request.on('error', reject)
      request.end(payload)
    })
  }

  /** The "By code" tab: `POST /device` with `Authorization: Code <code>`, SIMs empty as at first start. */
  async register(code: string, options: { pushToken?: string } = {}): Promise<HttpAnswer> {
    const answer = await this.call('POST', '/device', {
      authorization: `Code ${code}`,
      body: { name: 'samsung/a52qnsxx', ...(options.pushToken ? { pushToken: options.pushToken } : {}), simCards: [] },
    })
    if (answer.status === 201) {
      this.id = answer.json.id
      this.token = answer.json.token
      this.login = answer.json.login
      this.password = answer.json.password
    }
    return answer
  }

  /** What the app sends at every start: its SIMs, masked, and no push token in "SSE only". */
  patchDevice(simCards: Array<Record<string, unknown>> = [{ slotIndex: 0, simNumber: 1, carrierName: '**ange', phoneNumber: '********5678' }]) {
    return this.call('PATCH', '/device', { body: { id: this.id, simCards } })
  }

  /** Opens `GET /events` and reads it as it streams; resolves once the answer's headers came. */
  connect(): Promise<void> {
    return new Promise((resolve, reject) => {
      const request = httpRequest(new URL(`${this.apiUrl}/events`), {
        headers: { Authorization: `Bearer ${this.token}`, 'User-Agent': 'me.capcom.smsgateway/1.68.0' },
      })
      const stream = { request, response: null as IncomingMessage | null }
      this.#stream = stream
      request.on('error', (error) => (stream.response ? undefined : reject(error)))
      request.on('response', (response) => {
        stream.response = response
        this.streamStatus = response.statusCode ?? 0
        this.streamContentType = response.headers['content-type']
        this.#closed = new Promise((closed) => response.once('close', closed))
        if (response.statusCode !== 200 || !String(response.headers['content-type']).startsWith('text/event-stream')) {
          response.resume()
          return resolve()
        }
        let buffer = ''
        response.setEncoding('utf8')
        response.on('data', (chunk: string) => {
          buffer += chunk
          let end: number
          while ((end = buffer.indexOf('\n\n')) !== -1) {
            this.#frame(buffer.slice(0, end))
            buffer = buffer.slice(end + 2)
          }
        })
        response.on('error', () => {})
        // onOpen: the app pulls its messages at once.
        this.#track(this.fetchMessages())
        resolve()
      })
      request.end()
    })
  }

  /** Whether the stream is still open. */
  get streaming(): boolean {
    return !!this.#stream?.response && !this.#stream.response.destroyed && !this.#stream.response.complete
  }

  /** Resolves once the gateway (or the app) closed the stream. */
  closed(): Promise<void> {
    return this.#closed
  }

  /** The app is killed: the stream is cut. */
  disconnect() {
    this.#stream?.request.destroy()
    this.#stream = null
  }

  /** `GET /message`, then each new message carried out as `behaviour` says; a known one is reported as it stands. */
  async fetchMessages(order: 'lifo' | 'fifo' = 'lifo'): Promise<void> {
    const answer = await this.call('GET', `/message?order=${order}`)
    if (answer.status !== 200) return
    for (const item of answer.json as any[]) {
      const known = this.messages.get(item.id)
      if (known) {
        await this.#report(known)
        continue
      }
      const message: LocalMessage = { id: item.id, phoneNumbers: item.phoneNumbers, simNumber: item.simNumber, text: item.textMessage.text, state: 'Pending', states: { Pending: appDate() } }
      this.messages.set(item.id, message)
      await this.#carryOut(message)
    }
  }

  /** Lets everything the app started (fetches, reports) finish. */
  async idle(): Promise<void> {
    while (this.#inFlight.size) await Promise.all([...this.#inFlight])
  }

  async #carryOut(message: LocalMessage) {
    if (this.behaviour === 'silence') return
    await this.#step(message, 'Processed')
    if (this.behaviour === 'process') return
    if (this.behaviour === 'fail') return this.#step(message, 'Failed', this.failReason)
    await this.#step(message, 'Sent')
    if (this.behaviour === 'send') return
    await this.#step(message, 'Delivered')
  }

  async #step(message: LocalMessage, state: string, error?: string) {
    message.state = state
    message.states[state] = appDate()
    if (error) message.error = error
    await this.#report(message)
  }

  /** One `PATCH /message`: a one-element array with every recipient, as the app sends it. */
  async #report(message: LocalMessage) {
    const body = [
      {
        id: message.id,
        state: message.state,
        recipients: message.phoneNumbers.map((phoneNumber) => ({ phoneNumber, state: message.state, ...(message.error ? { error: message.error } : {}) })),
        states: { ...message.states },
      },
    ]
    this.reports.push(body)
    const answer = await this.call('PATCH', '/message', { body })
    if (answer.status !== 204) throw new Error(`PATCH /message answered ${answer.status}: ${answer.text}`)
  }

  #frame(frame: string) {
    const lines = frame.split('\n')
    if (lines.every((line) => line.startsWith(':'))) {
      if (lines.some((line) => line === ':keepalive')) this.keepalives++
      return
    }
    const event = lines.find((line) => line.startsWith('event:'))?.slice(6).trim() ?? 'MessageEnqueued'
    const data = lines.find((line) => line.startsWith('data:'))?.slice(5).trim() ?? ''
    this.events.push({ event, data })
    if (event === 'MessageEnqueued' && this.fetchOnEvents) this.#track(this.fetchMessages())
  }

  #track<T>(work: Promise<T>): Promise<T> {
    this.#inFlight.add(work)
    void work.finally(() => this.#inFlight.delete(work)).catch(() => {})
    return work
  }
}
