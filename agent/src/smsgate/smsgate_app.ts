import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http'
import { request as httpsRequest } from 'node:https'
import {
  APP_USER_AGENT,
  appDate,
  envelopeId,
  gsonJson,
  webhookSignature,
  type AppState,
  type ListedMessage,
  type SimCard,
} from './app_protocol.js'

export interface HttpAnswer {
  status: number
  headers: Record<string, string | string[] | undefined>
  text: string
  json: any
}

/** A message the app holds, by its id (the app's local database). */
export interface LocalMessage {
  /** Opaque: whatever the server listed, never parsed. */
  id: string
  phoneNumbers: string[]
  simNumber: number | null
  text: string
  state: AppState
  /** The first time each state was reached, in the app's date format. */
  states: Partial<Record<AppState, string>>
  error?: string
}

/** The body of one `PATCH /message`: a one-element array, every recipient, as the app sends it. */
export type StateReport = Array<{
  id: string
  state: AppState
  recipients: Array<{ phoneNumber: string; state: AppState; error?: string }>
  states: Partial<Record<AppState, string>>
}>

/** One HTTP exchange, JSON in and out, over http or https as the URL says. */
export function httpCall(url: URL, method: string, headers: Record<string, string>, payload?: string): Promise<HttpAnswer> {
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest
  return new Promise((resolve, reject) => {
    const request = send(url, { method, headers }, (response) => {
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

/**
 * The SMSGate Android app's side of its private-server protocol (docs/smsgate-app-protocol.md),
 * written once for the simulated phone (`node ace phone:simulate --app smsgate`) and the tests'
 * fake app: registers by code, opens its event stream and reads it as it comes, fetches its
 * messages when the stream opens and at each `MessageEnqueued`, keeps every message it fetched
 * by id (a listed id it already holds is only reported again as it stands, never carried out
 * twice), reports each state with one `PATCH /message`, cancels a message it still holds as
 * Pending on `MessageCancelled`, syncs its webhooks and settings, and posts signed webhooks.
 * Every request carries the app's User-Agent.
 *
 * What becomes of a new message is `carryOut`'s: the subclass's.
 */
export class SmsgateApp {
  id = ''
  token = ''
  login = ''
  password: string | undefined
  /** false: the app reads its stream but fetches nothing by itself (a test fetches). */
  fetchOnEvents = true
  /** Every message fetched, by id, as the app keeps them. */
  readonly messages = new Map<string, LocalMessage>()
  /** What `GET /webhooks` and `GET /settings` gave it. */
  webhooks: Array<{ id: string; url: string; event: string }> = []
  signingKey = ''
  /** The phone's clock, which stamps its webhooks and states. */
  nowMs: () => number = () => Date.now()
  streamStatus: number | null = null
  streamContentType: string | undefined
  #stream: { request: ClientRequest; response: IncomingMessage | null } | null = null
  #closed: Promise<void> = Promise.resolve()
  readonly #inFlight = new Set<Promise<unknown>>()

  constructor(readonly apiUrl: string) {}

  /** The app's own call: `{apiUrl}{path}` (text concatenation, as the app builds it), JSON in and out. */
  call(method: string, path: string, options: { body?: unknown; authorization?: string | null } = {}): Promise<HttpAnswer> {
    const url = new URL(`${this.apiUrl}${path}`)
    const payload = options.body === undefined ? undefined : gsonJson(options.body)
    const headers: Record<string, string> = { 'User-Agent': APP_USER_AGENT, 'Accept': 'application/json' }
    const authorization = options.authorization === undefined ? (this.token ? `Bearer ${this.token}` : null) : options.authorization
    if (authorization) headers.Authorization = authorization
    if (payload !== undefined) {
      headers['Content-Type'] = 'application/json'
      headers['Content-Length'] = String(Buffer.byteLength(payload))
    }
    return httpCall(url, method, headers, payload)
  }

  /** The "By code" tab: `POST /device` with `Authorization: Code <code>`, SIMs empty as at first start. */
  async register(code: string, options: { name?: string; pushToken?: string } = {}): Promise<HttpAnswer> {
    const answer = await this.call('POST', '/device', {
      authorization: `Code ${code}`,
      body: { name: options.name ?? 'samsung/a52qnsxx', ...(options.pushToken ? { pushToken: options.pushToken } : {}), simCards: [] },
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
  patchDevice(simCards: Array<SimCard | Record<string, unknown>> = [{ slotIndex: 0, simNumber: 1, carrierName: '**ange', phoneNumber: '********5678' }]) {
    return this.call('PATCH', '/device', { body: { id: this.id, simCards } })
  }

  /** The app's webhook and settings workers: `GET /webhooks` (its Cloud webhooks replaced) and `GET /settings`. */
  async sync(): Promise<void> {
    const webhooks = await this.call('GET', '/webhooks')
    if (webhooks.status !== 200) throw new Error(`GET /webhooks answered ${webhooks.status}`)
    this.webhooks = webhooks.json
    const settings = await this.call('GET', '/settings')
    if (settings.status !== 200) throw new Error(`GET /settings answered ${settings.status}`)
    this.signingKey = settings.json.webhooks?.signing_key ?? this.signingKey
  }

  /**
   * One webhook delivery as the app's queue makes it (docs/smsgate-app-protocol.md, §4): the
   * envelope with a new id, written by Gson, signed with `X-Timestamp` and `X-Signature`, posted
   * to the URL registered for the event. The options change what is signed or sent, for refusals.
   */
  async postWebhook(
    event: string,
    payload: Record<string, unknown>,
    options: { url?: string; key?: string; timestamp?: number; signature?: string | null; body?: string } = {}
  ): Promise<HttpAnswer> {
    const url = options.url ?? this.webhooks.find((webhook) => webhook.event === event)?.url
    if (!url) throw new Error(`No webhook registered for ${event}`)
    const webhookId = this.webhooks.find((webhook) => webhook.event === event)?.id ?? 'local'
    const body = options.body ?? gsonJson({ id: envelopeId(), webhookId, event, deviceId: this.id, payload })
    const timestamp = String(options.timestamp ?? Math.floor(this.nowMs() / 1000))
    const headers: Record<string, string> = {
      'User-Agent': APP_USER_AGENT,
      'Content-Type': 'application/json; charset=UTF-8',
      'Content-Length': String(Buffer.byteLength(body)),
    }
    if (options.signature !== null) {
      headers['X-Timestamp'] = timestamp
      headers['X-Signature'] = options.signature ?? webhookSignature(options.key ?? this.signingKey, body, timestamp)
    }
    return httpCall(new URL(url), 'POST', headers, body)
  }

  /** Opens `GET /events` and reads it as it streams; resolves once the answer's headers came. */
  connect(): Promise<void> {
    const url = new URL(`${this.apiUrl}/events`)
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest
    return new Promise((resolve, reject) => {
      const request = send(url, { headers: { 'Authorization': `Bearer ${this.token}`, 'User-Agent': APP_USER_AGENT } })
      const stream = { request, response: null as IncomingMessage | null }
      this.#stream = stream
      request.on('error', (error) => (stream.response ? undefined : reject(error)))
      request.on('response', (response) => {
        stream.response = response
        this.streamStatus = response.statusCode ?? 0
        this.streamContentType = response.headers['content-type']
        this.#closed = new Promise((closed) => response.once('close', closed))
        // okhttp-sse takes only a 2xx text/event-stream answer; anything else is a failure.
        if (response.statusCode !== 200 || !String(response.headers['content-type']).startsWith('text/event-stream')) {
          response.resume()
          return resolve()
        }
        let buffer = ''
        response.setEncoding('utf8')
        response.on('data', (chunk: string) => {
          buffer += chunk.replace(/\r\n?/g, '\n')
          let end: number
          while ((end = buffer.indexOf('\n\n')) !== -1) {
            this.#frame(buffer.slice(0, end))
            buffer = buffer.slice(end + 2)
          }
        })
        response.on('error', () => {})
        this.opened()
        // onOpen: the app pulls its messages at once.
        this.track(this.fetchMessages())
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

  /** `GET /message`, then each new message carried out; one it already holds is reported as it stands. */
  async fetchMessages(order: 'lifo' | 'fifo' = 'lifo'): Promise<void> {
    const answer = await this.call('GET', `/message?order=${order}`)
    if (answer.status !== 200) return
    for (const item of answer.json as ListedMessage[]) {
      const known = this.messages.get(item.id)
      if (known) {
        await this.known(known, item)
        continue
      }
      // A message without content is skipped by the app, and never reported.
      const text = item.textMessage?.text ?? item.message
      if (text === undefined) continue
      const message: LocalMessage = {
        id: item.id,
        phoneNumbers: item.phoneNumbers,
        simNumber: item.simNumber ?? null,
        text,
        state: 'Pending',
        states: { Pending: appDate(this.nowMs()) },
      }
      this.messages.set(item.id, message)
      await this.carryOut(message)
    }
  }

  /** Lets everything the app started (fetches, reports) finish. */
  async idle(): Promise<void> {
    while (this.#inFlight.size) await Promise.all([...this.#inFlight])
  }

  /** What the app does with a new message it fetched (held as Pending): the subclass's. */
  protected async carryOut(_message: LocalMessage): Promise<void> {}

  /** A listed id the app already holds: its state is reported again as it stands. */
  protected known(message: LocalMessage, _listed: ListedMessage): Promise<void> {
    return this.report(message)
  }

  /** Each event read on the stream (comments apart). */
  protected heard(_event: string, _data: string) {}

  /** Each `:keepalive` comment read. */
  protected keptAlive() {}

  /** The stream opened (before the fetch it starts). */
  protected opened() {}

  /** Each `PATCH /message` body, as it is sent. */
  protected reporting(_body: StateReport) {}

  /** Moves a message to a state (its first time kept in `states`) and reports it. */
  protected step(message: LocalMessage, state: AppState, error?: string): Promise<void> {
    message.state = state
    message.states[state] ??= appDate(this.nowMs())
    if (error) message.error = error
    return this.report(message)
  }

  /** One `PATCH /message`: a one-element array with every recipient, the message as it stands now. */
  protected async report(message: LocalMessage): Promise<void> {
    const body: StateReport = [
      {
        id: message.id,
        state: message.state,
        recipients: message.phoneNumbers.map((phoneNumber) => ({ phoneNumber, state: message.state, ...(message.error ? { error: message.error } : {}) })),
        states: { ...message.states },
      },
    ]
    this.reporting(body)
    const answer = await this.call('PATCH', '/message', { body })
    if (answer.status !== 204) throw new Error(`PATCH /message answered ${answer.status}: ${answer.text}`)
  }

  /** `MessageCancelled`: a message still Pending here is cancelled and reported so; another is left as it is. */
  protected async cancel(id: string) {
    const message = this.messages.get(id)
    if (message?.state !== 'Pending') return
    this.cancelled(message)
    try {
      await this.step(message, 'Cancelled')
    } catch {
      // Unpaired: its report is refused, as the app's would be.
    }
  }

  /** A held message is being cancelled (before its report): a subclass drops it from its queue. */
  protected cancelled(_message: LocalMessage) {}

  /** Work the app started on its own: `idle()` waits for it. */
  protected track<T>(work: Promise<T>): Promise<T> {
    this.#inFlight.add(work)
    void work.finally(() => this.#inFlight.delete(work)).catch((error: Error) => this.failed(error))
    return work
  }

  /** Work the app started on its own failed (a fetch or report refused, the network down). */
  protected failed(_error: Error) {}

  #frame(frame: string) {
    const lines = frame.split('\n')
    if (lines.every((line) => line.startsWith(':'))) {
      if (lines.some((line) => line === ':keepalive')) this.keptAlive()
      return
    }
    // No `event:` line is taken as MessageEnqueued (SSEForegroundService.processEvent).
    const event = lines.find((line) => line.startsWith('event:'))?.slice(6).trim() ?? 'MessageEnqueued'
    const data = lines.find((line) => line.startsWith('data:'))?.slice(5).trim() ?? ''
    this.heard(event, data)
    if (event === 'MessageEnqueued' && this.fetchOnEvents) this.track(this.fetchMessages())
    if (event === 'MessageCancelled') {
      let id: unknown
      try {
        id = JSON.parse(data)?.messageId
      } catch {}
      if (typeof id === 'string') this.track(this.cancel(id))
    }
    if (event === 'WebhooksUpdated' || event === 'SettingsUpdated') this.track(this.sync())
  }
}
