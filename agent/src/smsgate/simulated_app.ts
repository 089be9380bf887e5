import { SmsgateApp, type LocalMessage } from './smsgate_app.js'
import { AppStateStore } from './app_state.js'
import {
  FAILURE_TEXTS,
  WEBHOOK_RETRIES,
  appDate,
  reconnectDelayMs,
  receivedMessageId,
  redact,
  webhookRetryDelayMs,
  type ListedMessage,
  type SimCard,
} from './app_protocol.js'
import type { SimulatorSettings } from '../simulator_flags.js'

/** Ends the simulated app: retrying cannot help, the operator must act (pair again). */
export class AppStopped extends Error {}

export interface SimulatedAppOptions {
  /** The API URL typed in the app: `{gateway}/api/mobile/v1`, no trailing slash. */
  apiUrl: string
  /** `<manufacturer>/<product>` in the real app. */
  name?: string
  settings: SimulatorSettings
  /** Token, login and held message ids kept across restarts (default: in memory only). */
  state?: AppStateStore
  log?: (line: string) => void
  /** The stream's reconnection waits (default the app's: 5 s, then 30 s, then 60 s). */
  reconnectDelayMs?: (attempt: number) => number
  /** The first wait before `PATCH /device` is tried again (default 10 s, doubled each time up to 5 min). */
  registrationRetryMs?: number
  random?: () => number
}

/** A fictional number (555-01xx) for inbound SMS before anything was sent. */
const FICTIONAL_SENDER = '+15555550123'
/** Replies come from one of the last numbers sent to. */
const RECENT_RECIPIENTS = 100
const DAY_MS = 24 * 60 * 60_000

/** A number's first characters only: logs never carry a full phone number. */
const mask = (number: string) => `${number.slice(0, 4)}…`

const PAIR_AGAIN = 'the phone must be paired again (new pairing code for the SMSGate app, --pair CODE)'

/**
 * A simulated SMSGate app (docs/smsgate.md, the simulator): what the real app does in "SSE only"
 * mode, with a simulated radio. Registers by code (or starts from its state file), reports its
 * SIMs (`PATCH /device`), syncs its webhooks and settings, holds its event stream open and opens
 * it again after 5, 30 or 60 s as the app does, sends the messages it holds one at a time
 * (Processed, then Sent or Failed after the latency, then Delivered for the delivery rate), and
 * posts signed `sms:received` webhooks for the SMS it "receives".
 */
export class SimulatedSmsgateApp extends SmsgateApp {
  /** Messages sent so far (Sent), and what a bench or test listens to. */
  sentCount = 0
  onEvent: ((event: string, data: string) => void) | null = null
  readonly #options: SimulatedAppOptions
  readonly #state: AppStateStore
  readonly #random: () => number
  readonly #log: (line: string) => void
  /** Messages waiting for the radio, in the order they were fetched. */
  readonly #queue: LocalMessage[] = []
  #sending = false
  /** Each message's report under way and whether another must follow it (with the newest state). */
  readonly #reporting = new Map<string, { again: boolean }>()
  readonly #recipients: string[] = []
  readonly #timers = new Set<{ timer: NodeJS.Timeout; resolve: () => void }>()
  #intervals: NodeJS.Timeout[] = []
  #stopped = false
  #attempt = 0
  #generated = 0
  #ended: Promise<void> | null = null

  constructor(options: SimulatedAppOptions) {
    super(options.apiUrl)
    this.#options = options
    this.#state = options.state ?? new AppStateStore()
    this.#random = options.random ?? Math.random
    this.#log = options.log ?? (() => {})
    const kept = this.#state.state
    if (kept.token && kept.apiUrl === options.apiUrl) {
      this.id = kept.id ?? ''
      this.token = kept.token
      this.login = kept.login ?? ''
    }
    for (const [id, [state, , error]] of Object.entries(kept.messages)) {
      this.messages.set(id, { id, phoneNumbers: [], simNumber: null, text: '', state, states: {}, ...(error ? { error } : {}) })
    }
  }

  /** Whether it holds a token (from pairing or its state file). */
  get registered(): boolean {
    return !!this.token
  }

  /** The SIMs as the app reports them: masked carrier name, no number (Android does not know it). */
  simCards(): SimCard[] {
    return this.#options.settings.sims.map(({ slot, operator }) => ({ slotIndex: slot, simNumber: slot + 1, ...(operator ? { carrierName: redact(operator) } : {}) }))
  }

  /**
   * "By code": `POST /device` with the code (no SIMs, as at first start); the token and login are
   * kept in the state file. Throws an AppStopped when the code is refused.
   */
  async pair(code: string): Promise<void> {
    let answer
    try {
      answer = await this.register(code, { name: this.#options.name })
    } catch (error) {
      throw new Error(`cannot reach the gateway at ${this.apiUrl} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`)
    }
    if (answer.status !== 201) {
      const reason = answer.json?.error?.code ?? answer.json?.code ?? `HTTP ${answer.status}`
      throw new AppStopped(`pairing refused: ${reason}`)
    }
    Object.assign(this.#state.state, { apiUrl: this.apiUrl, id: this.id, token: this.token, login: this.login })
    await this.#state.save()
  }

  /**
   * Starts the app as it starts on a phone: `PATCH /device` (its SIMs; retried while the gateway
   * cannot be reached), its webhooks and settings, then the event stream, held open until
   * `stop()`. `ended` rejects with an AppStopped when the gateway refuses its token.
   */
  start(): Promise<void> {
    this.#ended ??= this.#run().finally(() => this.#shutDown())
    return this.#ended
  }

  get ended(): Promise<void> {
    return this.#ended ?? Promise.resolve()
  }

  async stop(): Promise<void> {
    this.#stopped = true
    for (const { timer, resolve } of this.#timers) {
      clearTimeout(timer)
      resolve()
    }
    this.#timers.clear()
    this.disconnect()
    await this.#ended?.catch(() => {})
    await this.#state.written()
  }

  /**
   * An SMS arrives on the phone: the app posts `sms:received`, signed, to the URL the gateway
   * gave it, and retries a refusal or a network failure as the app's queue does.
   */
  async receive(from: string, text: string, simSlot = 0): Promise<boolean> {
    const receivedAt = this.nowMs()
    const payload = {
      message: text,
      receivedAt: appDate(receivedAt),
      messageId: receivedMessageId(from, receivedAt, simSlot + 1, text),
      sender: from,
      simNumber: simSlot + 1,
      phoneNumber: from,
    }
    if (!this.webhooks.some((webhook) => webhook.event === 'sms:received')) {
      this.#log(`SMS received from ${mask(from)} on SIM ${simSlot + 1}: no sms:received webhook registered, not posted`)
      return false
    }
    for (let failures = 0; !this.#stopped; ) {
      const answer = await this.postWebhook('sms:received', payload).catch((error: Error) => ({ status: 0, text: error.message }))
      if (answer.status >= 200 && answer.status < 300) {
        this.#log(`SMS received from ${mask(from)} on SIM ${simSlot + 1}: posted`)
        return true
      }
      if (++failures > WEBHOOK_RETRIES) break
      this.#log(`SMS received from ${mask(from)}: webhook answered ${answer.status || 'nothing'}; retrying in ${webhookRetryDelayMs(failures) / 1000} s`)
      await this.#sleep(webhookRetryDelayMs(failures))
    }
    return false
  }

  async #run() {
    if (!this.token) throw new AppStopped(`no token: pair first (--pair CODE)`)
    await this.#patchDevice()
    // The webhook and settings workers run at each start and every 24 h; a failure retries.
    this.track(this.#syncUntilDone())
    this.#intervals.push(setInterval(() => this.track(this.#syncUntilDone()), DAY_MS))
    const inboundEvery = this.#options.settings.inboundEveryMs
    if (inboundEvery) this.#intervals.push(setInterval(() => this.#generateInbound(), inboundEvery))
    for (const interval of this.#intervals) interval.unref()
    await this.#holdStream()
  }

  /** `PATCH /device` with its SIMs. 401: the app would register again anonymously, which the gateway refuses. */
  async #patchDevice() {
    let wait = this.#options.registrationRetryMs ?? 10_000
    while (!this.#stopped) {
      const answer = await this.patchDevice(this.simCards()).catch((error: NodeJS.ErrnoException) => ({ status: 0, text: error.code ?? error.message }))
      if (answer.status >= 200 && answer.status < 300) return
      if (answer.status === 401) throw new AppStopped(`the gateway refused this phone's token (401: unpaired, or the gateway lost its secret.key); ${PAIR_AGAIN}`)
      this.#log(`cannot register the phone (${answer.status || answer.text}); retrying in ${wait / 1000} s`)
      await this.#sleep(wait)
      wait = Math.min(wait * 2, 300_000)
    }
  }

  async #syncUntilDone() {
    for (let wait = 10_000; !this.#stopped; wait = Math.min(wait * 2, 300_000)) {
      try {
        await this.sync()
        return
      } catch (error) {
        this.#log(`cannot read the webhooks and settings (${(error as Error).message}); retrying in ${wait / 1000} s`)
        await this.#sleep(wait)
      }
    }
  }

  /** The app's SSEManager: one stream, opened again after each failure or close, for ever. */
  async #holdStream() {
    const delay = this.#options.reconnectDelayMs ?? reconnectDelayMs
    while (!this.#stopped) {
      let why: string
      try {
        await this.connect()
        if (this.streamStatus === 200 && String(this.streamContentType).startsWith('text/event-stream')) {
          this.#log('connected')
          await this.closed()
          why = 'connection closed'
        } else {
          // The app keeps trying with a refused token; the simulator stops: nothing can change it.
          if (this.streamStatus === 401) throw new AppStopped(`the gateway refused this phone's token on its event stream (401); ${PAIR_AGAIN}`)
          why = `event stream refused (${this.streamStatus})`
        }
      } catch (error) {
        if (error instanceof AppStopped) throw error
        why = `cannot connect (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`
      }
      if (this.#stopped) return
      const wait = delay(++this.#attempt)
      this.#log(`${why}; reconnecting in ${wait / 1000} s`)
      await this.#sleep(wait)
    }
  }

  protected override opened() {
    this.#attempt = 0
  }

  protected override heard(event: string, data: string) {
    this.onEvent?.(event, data)
  }

  protected override failed(error: Error) {
    if (!this.#stopped) this.#log(`${error.message}`)
  }

  /** A new message: held as Pending, remembered, and queued for the radio. */
  protected override async carryOut(message: LocalMessage) {
    this.#remember(message)
    this.#queue.push(message)
    this.#drain()
  }

  /**
   * A listed id it already holds is reported as it stands. One held as Pending from before a
   * restart (its number and text are not kept) is sent now, as the app's queue would.
   */
  protected override async known(message: LocalMessage, listed: ListedMessage) {
    if (!message.phoneNumbers.length) {
      message.phoneNumbers = listed.phoneNumbers
      message.simNumber = listed.simNumber ?? null
      message.text = listed.textMessage?.text ?? listed.message ?? ''
      if (message.state === 'Pending') {
        this.#queue.push(message)
        this.#drain()
      }
    }
    this.#report(message)
  }

  protected override cancelled(message: LocalMessage) {
    const index = this.#queue.indexOf(message)
    if (index !== -1) this.#queue.splice(index, 1)
    this.#log(`SMS ${message.id} cancelled by the gateway before it was sent`)
  }

  protected override step(message: LocalMessage, state: LocalMessage['state'], error?: string): Promise<void> {
    message.state = state
    message.states[state] ??= appDate(this.nowMs())
    if (error) message.error = error
    this.#remember(message)
    return this.#report(message)
  }

  /**
   * The app's state worker: each report reads the message as it stands when it leaves; one
   * still waiting to leave carries the newest state, so a message has one report under way at
   * a time and its states never arrive out of order.
   */
  #report(message: LocalMessage): Promise<void> {
    const pending = this.#reporting.get(message.id)
    if (pending) {
      pending.again = true
      return Promise.resolve()
    }
    const entry = { again: false }
    this.#reporting.set(message.id, entry)
    const work = (async () => {
      try {
        do {
          entry.again = false
          await this.report(message)
        } while (entry.again && !this.#stopped)
      } finally {
        this.#reporting.delete(message.id)
      }
    })()
    return this.track(work)
  }

  /** The radio: one message at a time, in the order fetched. */
  #drain() {
    if (this.#sending) return
    this.#sending = true
    void (async () => {
      try {
        while (this.#queue.length && !this.#stopped) await this.#send(this.#queue.shift()!)
      } finally {
        this.#sending = false
      }
    })()
  }

  async #send(message: LocalMessage) {
    if (message.state !== 'Pending') return
    const { sims, latencyMs, failureRate, deliveryRate } = this.#options.settings
    // No SIM asked: the phone's default one.
    const simNumber = message.simNumber ?? sims[0].slot + 1
    const to = message.phoneNumbers.map(mask).join(', ')
    if (!sims.some((sim) => sim.slot + 1 === simNumber)) {
      this.#log(`SMS ${message.id} to ${to}: failed (no SIM ${simNumber})`)
      void this.step(message, 'Failed', FAILURE_TEXTS.noSim(simNumber))
      return
    }
    // Handed to the radio: Processed, before its result.
    void this.step(message, 'Processed')
    if (latencyMs) await this.#sleep(latencyMs)
    else await new Promise((resolve) => setImmediate(resolve))
    if (this.#stopped) return
    if (this.#random() < failureRate) {
      this.#log(`SMS ${message.id} to ${to} from SIM ${simNumber}: failed (RESULT_ERROR_GENERIC_FAILURE)`)
      void this.step(message, 'Failed', FAILURE_TEXTS.generic)
      return
    }
    this.sentCount++
    for (const number of message.phoneNumbers) {
      this.#recipients.push(number)
      if (this.#recipients.length > RECENT_RECIPIENTS) this.#recipients.shift()
    }
    this.#log(`SMS ${message.id} to ${to} from SIM ${simNumber}: sent`)
    void this.step(message, 'Sent')
    // The delivery report comes later, from the network, without holding up the next send.
    if (this.#random() < deliveryRate) setImmediate(() => void this.step(message, 'Delivered'))
  }

  #generateInbound() {
    const from = this.#recipients.length ? this.#recipients[Math.floor(this.#random() * this.#recipients.length)] : FICTIONAL_SENDER
    const { sims } = this.#options.settings
    const slot = sims[Math.floor(this.#random() * sims.length)].slot
    this.track(this.receive(from, `Simulated reply ${++this.#generated}`, slot))
  }

  /** The state file says which ids it holds and where each stands (never a number or text). */
  #remember(message: LocalMessage) {
    if (!this.#state.file) return
    this.#state.state.messages[message.id] = [message.state, this.nowMs(), message.error ?? null]
    this.#state.prune()
    void this.#state.save().catch((error: Error) => this.#log(`cannot write the state file (${error.message})`))
  }

  #sleep(ms: number): Promise<void> {
    if (this.#stopped) return Promise.resolve()
    return new Promise((resolve) => {
      const entry = {
        timer: setTimeout(() => {
          this.#timers.delete(entry)
          resolve()
        }, ms),
        resolve,
      }
      this.#timers.add(entry)
    })
  }

  #shutDown() {
    this.#stopped = true
    for (const interval of this.#intervals) clearInterval(interval)
    this.#intervals = []
    this.disconnect()
  }
}
