import { createHash, randomInt } from 'node:crypto'
import type { DeviceStatus, InboundSms, SendOrder, SendOutcome, SmsDriver } from '../sms_driver.js'
import { AtChannel, AtError, type Unsolicited } from '../modem/at_channel.js'
import { pause, systemClock, type ModemClock, type ModemTimer } from '../modem/clock.js'
import { openSerialPort, type ModemPort } from '../modem/serial_port.js'
import { sendFailureReason } from '../modem/send_failures.js'
import {
  DEFAULT_VALIDITY_MINUTES,
  DeliveryTracker,
  PduError,
  REASSEMBLY_TIMEOUT_MS,
  Reassembly,
  decodePdu,
  encodeSubmit,
  type ReassembledSms,
  type SmsDeliver,
  type SmsStatusReport,
  type SubmitPart,
  type TrackedSnapshot,
} from '../modem/pdu/index.js'

/**
 * How long a sent message waits for its status reports: the service centre gives up at the end
 * of the validity period the SMS asked for, and a day more covers a report that waited for a
 * modem switched off.
 */
export const KEEP_DELIVERIES_MS = DEFAULT_VALIDITY_MINUTES * 60_000 + 24 * 60 * 60_000

/** Every bound the driver waits by, in milliseconds. */
export interface ModemTimeouts {
  /** One command's answer. */
  commandMs: number
  /** AT+CMGS: the `> ` prompt. Past it nothing was written: the SMS did not leave. */
  promptMs: number
  /** AT+CMGS: `+CMGS: <mr>` after the PDU. Past it the SMS may have left: OUTCOME_UNKNOWN. */
  sendMs: number
  /** Network registration at start (searching is waited for this long). */
  registrationMs: number
  /** Between two registration queries while searching. */
  registrationPollMs: number
  /** The SIM becoming ready after its PIN. */
  simReadyMs: number
  /** The missing parts of a long SMS received. */
  reassemblyMs: number
  /** Between two `AT` probes of an idle modem. */
  probeMs: number
  /** Between two attempts to set a modem up again after a reset failed. */
  resetRetryMs: number
  /** Between two attempts to open a serial device that went away. */
  reopenMs: number
}

/**
 * How long a status report that came before its send's answer waits once the send is tracked:
 * the agent reports the send first, since a delivery failure it heard before the send's
 * outcome would read as a failed attempt, and the gateway would send the SMS again.
 */
export const EARLY_REPORT_DELAY_MS = 1_000

/** At most this many early reports are held during one send (a text has at most 255 parts). */
const EARLY_REPORTS_KEPT = 255

/** Commands left unanswered in a row (the resynchronisation marker after a timeout counts) before the modem is reset. */
export const SILENT_LIMIT = 2

export const MODEM_TIMEOUTS: ModemTimeouts = {
  commandMs: 10_000,
  promptMs: 10_000,
  sendMs: 60_000,
  registrationMs: 60_000,
  registrationPollMs: 2_000,
  simReadyMs: 20_000,
  reassemblyMs: REASSEMBLY_TIMEOUT_MS,
  probeMs: 60_000,
  resetRetryMs: 30_000,
  reopenMs: 5_000,
}

export interface ModemOptions {
  /** The serial device, e.g. /dev/ttyUSB2. */
  path: string
  /** Set the line speed with stty first (real modems); omit for a pseudo-terminal. */
  baudRate?: number
  /** The SIM's PIN, entered when AT+CPIN? asks for it. Never logged nor put in an error. */
  pin?: string
  /** The concatenation reference of the next long SMS (0-255); by default a counter from a random start. */
  nextReference?: () => number
  /**
   * The messages waiting for status reports, kept across restarts: `restored` is what the last
   * run left, `changed` is told each time it changes (default: in memory only).
   */
  deliveries?: { restored?: TrackedSnapshot[]; changed?: (waiting: TrackedSnapshot[]) => void }
  clock?: ModemClock
  /** Opens the byte stream to the modem (default: the serial device at `path`). */
  open?: () => Promise<ModemPort>
  /** One line per event worth an operator's eye; never a number, a text or the PIN. */
  log?: (line: string) => void
  timeouts?: Partial<ModemTimeouts>
}

/** The modem could not be set up: `step` names the command or stage that failed. */
export class ModemStartError extends Error {
  constructor(
    readonly step: string,
    detail: string
  ) {
    super(`modem setup, ${step}: ${detail}`)
  }
}

/** Where the modem keeps a received SMS: its store (`SM`, `ME`, `SR`...) and index there. */
interface Stored {
  store: string | null
  index: number
}

/** Registration states of +CREG / +CEREG (TS 27.007 clause 7.2): 1 home, 5 roaming. */
const REGISTERED = new Set([1, 5])
const DENIED = 3

/**
 * A serial GSM modem through AT commands in PDU mode (3GPP TS 27.005): sends SMS-SUBMIT PDUs
 * with AT+CMGS, matches status reports (+CDS, or +CDSI then a read) to the parts sent, reads
 * received SMS (+CMTI then AT+CMGR, +CMT directly, and what the SIM holds at start), puts long
 * ones back together, and reports signal from AT+CSQ and the operator from AT+COPS?.
 * One SMS at a time; every wait bounded on the injected clock.
 */
export class AtModemDriver implements SmsDriver {
  readonly #options: ModemOptions
  readonly #clock: ModemClock
  readonly #timeouts: ModemTimeouts
  #at: AtChannel | null = null
  #inbound: Array<(sms: InboundSms) => unknown> = []
  /** SMS made whole before any listener was there (the SIM is read at start, before the agent listens). */
  #unheard: Array<{ sms: InboundSms; stored: Stored[] }> = []
  #delivered: Array<(messageId: string) => void> = []
  #deliveryFailed: Array<(messageId: string, reason: string) => void> = []
  readonly #tracker = new DeliveryTracker()
  /** Set while a message's parts are being sent: its TP-MRs are not tracked yet. */
  #sendingParts = false
  /** Status reports that matched nothing while a message was being sent: perhaps its own, come before +CMGS. */
  #earlyReports: SmsStatusReport[] = []
  readonly #reassembly: Reassembly
  /** Where each waiting part of a long SMS is stored (a repeat of a part too), by the part's identity. */
  readonly #parts = new Map<string, Stored[]>()
  /**
   * Stored messages being handled, by store and index, until deleted: an SMS arriving while the
   * start lists the store is both listed and announced, and must be handed over once.
   */
  readonly #handling = new Set<string>()
  /** The store AT+CMGR and AT+CMGD read (the first of AT+CPMS), null when unknown. */
  #readStore: string | null = null
  /** AT+CSMS service 1: every +CMT and +CDS must be acknowledged with AT+CNMA. */
  #acknowledge = false
  #operator: string | undefined
  #sending: Promise<unknown> = Promise.resolve()
  #reference = randomInt(256)
  #stopped = false
  /** Set while the modem is reset: the channel is held, orders wait in it. */
  #resetting: Promise<void> | null = null
  #probe: ModemTimer | null = null
  #reopening = false
  /** Open and set up: false while the device is away or the modem being reset. */
  #ready = true
  #readiness: Array<(ready: boolean) => void> = []

  constructor(options: ModemOptions) {
    this.#options = options
    this.#clock = options.clock ?? systemClock
    this.#timeouts = { ...MODEM_TIMEOUTS, ...options.timeouts }
    this.#reassembly = new Reassembly({ now: () => this.#clock.nowMs(), timeoutMs: this.#timeouts.reassemblyMs })
    this.#tracker.restore(options.deliveries?.restored ?? [])
    this.#tracker.forgetSentBefore(this.#clock.nowMs() - KEEP_DELIVERIES_MS)
  }

  sims() {
    return [{ slot: 0, label: 'Modem', ...(this.#operator ? { operator: this.#operator } : {}) }]
  }

  /** Opens the port and sets the modem up, step by step; then hands on what the SIM holds. */
  async start() {
    try {
      await this.#connect()
    } catch (error) {
      this.stop()
      throw error
    }
    void this.#readStoredAtStart()
  }

  stop() {
    this.#stopped = true
    this.#probe?.cancel()
    this.#at?.close()
  }

  async #connect() {
    const port = await (this.#options.open ?? (() => openSerialPort(this.#options.path, this.#options.baudRate)))()
    const at = new AtChannel(port, this.#clock, this.#timeouts.commandMs)
    this.#at = at
    at.onUnsolicited((message) => this.#onUnsolicited(message))
    at.onTimeout((consecutive) => {
      if (consecutive >= SILENT_LIMIT) void this.#reset(at)
    })
    at.onClose(() => void this.#reopen(at))
    try {
      await this.#setUp()
    } catch (error) {
      at.close()
      throw error
    }
    this.#armProbe(at)
  }

  /**
   * A hung modem says nothing: an `AT` now and then while idle finds out (a busy channel is
   * checked by its own commands' bounds).
   */
  #armProbe(at: AtChannel) {
    this.#probe?.cancel()
    this.#probe = this.#clock.setTimer(this.#timeouts.probeMs, () => {
      if (this.#stopped || at !== this.#at || at.closed) return
      if (at.idle && !this.#resetting) void at.command('AT', { timeoutMs: this.#timeouts.commandMs }).catch(() => {})
      this.#armProbe(at)
    })
  }

  /**
   * ATZ and the set-up again, the channel held meanwhile: orders given during it wait and go
   * after. A failed attempt fails what waits (nothing of it was written: retryable) and is tried
   * again later; the order that was under way when the modem fell silent was already answered.
   */
  #reset(at: AtChannel): Promise<void> {
    if (this.#resetting || this.#stopped || at !== this.#at) return this.#resetting ?? Promise.resolve()
    this.#log('the modem stopped answering: resetting it (ATZ, then the set-up)')
    this.#setReady(false)
    at.hold()
    this.#resetting = (async () => {
      while (!this.#stopped && !at.closed) {
        try {
          await at.command('ATZ', { timeoutMs: this.#timeouts.commandMs, whileHeld: true })
          await this.#setUp()
          this.#log('the modem answers again')
          break
        } catch (error) {
          this.#log(`reset failed (${(error as Error).message}); trying again in ${this.#timeouts.resetRetryMs / 1000} s`)
          at.failQueued('no answer')
          await pause(this.#clock, this.#timeouts.resetRetryMs)
        }
      }
      this.#resetting = null
      at.release()
      // A device gone during the reset is the reopening's to report ready.
      if (!at.closed && !this.#stopped) {
        this.#setReady(true)
        void this.#readStoredAtStart()
      }
    })()
    return this.#resetting
  }

  /** The serial device went away (a USB modem unplugged): opened again until it is back. */
  async #reopen(at: AtChannel) {
    // A port that closes again during the set-up of a reopening is this loop's to retry.
    if (this.#stopped || at !== this.#at || this.#reopening) return
    this.#reopening = true
    this.#probe?.cancel()
    this.#setReady(false)
    this.#log(`the serial device went away; opening it again every ${this.#timeouts.reopenMs / 1000} s`)
    let last = ''
    for (;;) {
      await pause(this.#clock, this.#timeouts.reopenMs)
      if (this.#stopped) return
      try {
        await this.#connect()
        this.#reopening = false
        this.#log('the serial device is back and the modem set up')
        this.#setReady(true)
        void this.#readStoredAtStart()
        return
      } catch (error) {
        // Once per kind of failure: a device away for hours must not fill the log.
        const message = (error as Error).message
        if (message !== last) this.#log(`cannot open the modem yet (${message})`)
        last = message
      }
    }
  }

  onInbound(listener: (sms: InboundSms) => unknown) {
    this.#inbound.push(listener)
    // Both the agent and the runner's log listen, registered one after the other: what waited
    // goes once both are there.
    if (this.#inbound.length === 1 && this.#unheard.length) {
      queueMicrotask(() => {
        for (const { sms, stored } of this.#unheard.splice(0)) void this.#hand(sms, stored)
      })
    }
  }

  onReadiness(listener: (ready: boolean) => void) {
    this.#readiness.push(listener)
  }

  #setReady(ready: boolean) {
    if (ready === this.#ready || this.#stopped) return
    this.#ready = ready
    for (const listener of this.#readiness) listener(ready)
  }

  onDelivered(listener: (messageId: string) => void) {
    this.#delivered.push(listener)
  }

  onDeliveryFailed(listener: (messageId: string, reason: string) => void) {
    this.#deliveryFailed.push(listener)
  }

  // ---- Set-up ----

  async #setUp() {
    const at = this.#at!
    const step = async (command: string, what: string, options: { step?: string; timeoutMs?: number } = {}) => {
      try {
        return await at.command(command, { timeoutMs: this.#timeouts.commandMs, whileHeld: true, ...options })
      } catch (error) {
        throw error instanceof AtError ? new ModemStartError(`${error.step} (${what})`, error.result) : error
      }
    }
    // The modem starts with echo on: ATE0's own line comes back echoed, the channel skips it.
    await step('ATE0', 'echo off')
    await step('AT+CMEE=1', 'numeric errors')
    await this.#unlockSim(step)
    await step('AT+CMGF=0', 'PDU mode')
    this.#acknowledge = await at
      .command('AT+CSMS?', { timeoutMs: this.#timeouts.commandMs, whileHeld: true })
      .then((lines) => /^\+CSMS:\s*1\b/.test(lines.find((line) => line.startsWith('+CSMS:')) ?? ''))
      .catch(() => false)
    await this.#awaitRegistration()
    // New SMS announced by their store index (+CMTI), status reports routed as they come
    // (+CDS), or stored and announced (+CDSI) on a modem that cannot route them.
    await this.#firstAccepted(['AT+CNMI=2,1,0,1,0', 'AT+CNMI=2,1,0,2,0', 'AT+CNMI=1,1,0,2,0'], 'new SMS and status report notices')
    const store = await this.#firstAccepted(['AT+CPMS="SM","SM","SM"', 'AT+CPMS="ME","ME","ME"', 'AT+CPMS="MT","MT","MT"'], 'message storage')
    this.#readStore = /"(\w+)"/.exec(store)![1]
    await at.command('AT+COPS=3,0', { timeoutMs: this.#timeouts.commandMs, whileHeld: true }).catch(() => {})
    this.#operator = await this.#readOperator(true)
  }

  async #unlockSim(step: (command: string, what: string, options?: { step?: string }) => Promise<string[]>) {
    const state = async () => {
      const lines = await step('AT+CPIN?', 'SIM state')
      return /^\+CPIN:\s*(.+)$/.exec(lines.find((line) => line.startsWith('+CPIN:')) ?? '')?.[1].trim() ?? 'unknown'
    }
    let sim = await state()
    if (sim === 'READY') return
    if (sim !== 'SIM PIN') throw new ModemStartError('AT+CPIN? (SIM state)', `the SIM answers "${sim}"; unlock it in a phone first`)
    const pin = this.#options.pin
    if (!pin) throw new ModemStartError('AT+CPIN? (SIM state)', 'the SIM asks for its PIN: give it with --pin or MODEM_PIN')
    if (!/^\d{4,8}$/.test(pin)) throw new ModemStartError('AT+CPIN (SIM PIN)', 'the PIN given is not 4 to 8 digits')
    await step(`AT+CPIN="${pin}"`, 'SIM PIN', { step: 'AT+CPIN' })
    // The SIM takes a few seconds after its PIN before SMS commands work.
    const until = this.#clock.nowMs() + this.#timeouts.simReadyMs
    while ((sim = await state()) !== 'READY') {
      if (this.#clock.nowMs() >= until) throw new ModemStartError('AT+CPIN? (SIM state)', `not ready after the PIN ("${sim}")`)
      await pause(this.#clock, 1000)
    }
  }

  async #awaitRegistration() {
    const until = this.#clock.nowMs() + this.#timeouts.registrationMs
    for (;;) {
      const states: number[] = []
      for (const query of ['AT+CREG?', 'AT+CEREG?']) {
        // A modem without LTE answers ERROR to AT+CEREG?: the other query decides.
        const lines = await this.#at!.command(query, { timeoutMs: this.#timeouts.commandMs, whileHeld: true }).catch(() => [] as string[])
        const match = /^\+C(?:E)?REG:\s*\d+\s*,\s*(\d+)/.exec(lines.find((line) => /^\+C(E)?REG:/.test(line)) ?? '')
        if (match) states.push(Number(match[1]))
      }
      if (states.some((state) => REGISTERED.has(state))) return
      if (!states.length) throw new ModemStartError('AT+CREG? (network registration)', 'no answer the driver can read')
      if (states.every((state) => state === DENIED)) throw new ModemStartError('AT+CREG? (network registration)', 'registration denied by the network')
      if (this.#clock.nowMs() >= until) {
        throw new ModemStartError('AT+CREG? (network registration)', `not registered after ${this.#timeouts.registrationMs / 1000} s (state ${states.join('/')})`)
      }
      await pause(this.#clock, this.#timeouts.registrationPollMs)
    }
  }

  /** Tries each command until the modem accepts one; answers it. */
  async #firstAccepted(commands: string[], what: string): Promise<string> {
    let last: AtError | null = null
    for (const command of commands) {
      try {
        await this.#at!.command(command, { timeoutMs: this.#timeouts.commandMs, whileHeld: true })
        return command
      } catch (error) {
        if (!(error instanceof AtError) || error.timedOut || error.result === 'port closed') {
          throw error instanceof AtError ? new ModemStartError(`${error.step} (${what})`, error.result) : error
        }
        last = error
      }
    }
    throw new ModemStartError(`${last!.step} (${what})`, `${last!.result} to each of ${commands.join(', ')}`)
  }

  async #readOperator(whileHeld = false): Promise<string | undefined> {
    const lines = await this.#at!.command('AT+COPS?', { timeoutMs: this.#timeouts.commandMs, whileHeld }).catch(() => [] as string[])
    // +COPS: <mode>[,<format>,"<operator>"[,<act>]]
    return /^\+COPS:\s*\d+\s*,\s*\d+\s*,\s*"([^"]*)"/.exec(lines.find((line) => line.startsWith('+COPS:')) ?? '')?.[1] || undefined
  }

  // ---- Sending ----

  /** One SMS at a time per modem: its parts must not interleave with another message's. */
  send(order: SendOrder): Promise<SendOutcome> {
    const turn = this.#sending.then(() => this.#send(order))
    this.#sending = turn.catch(() => {})
    return turn
  }

  async #send(order: SendOrder): Promise<SendOutcome> {
    const at = this.#at
    if (!at || at.closed) return { ok: false, reason: 'MODEM_DISCONNECTED' }
    let parts
    try {
      parts = encodeSubmit(order.to, order.text, { reference: 0 }).parts
      // A reference is used up only by a text sent in parts.
      if (parts.length > 1) parts = encodeSubmit(order.to, order.text, { reference: this.#nextReference() }).parts
    } catch (error) {
      if (!(error instanceof PduError)) throw error
      return { ok: false, reason: /address/.test(error.message) ? 'INVALID_RECIPIENT' : 'INVALID_TEXT' }
    }
    this.#sendingParts = true
    try {
      return await this.#sendParts(order, parts, at)
    } finally {
      this.#sendingParts = false
      this.#earlyReports = []
    }
  }

  async #sendParts(order: SendOrder, parts: SubmitPart[], at: AtChannel): Promise<SendOutcome> {
    const references: number[] = []
    for (const [index, part] of parts.entries()) {
      try {
        const lines = await at.command(`AT+CMGS=${part.length}`, {
          pdu: part.pdu,
          promptTimeoutMs: this.#timeouts.promptMs,
          timeoutMs: this.#timeouts.sendMs,
        })
        const reference = /^\+CMGS:\s*(\d+)/.exec(lines.find((line) => line.startsWith('+CMGS:')) ?? '')
        if (reference) references.push(Number(reference[1]))
      } catch (error) {
        if (!(error instanceof AtError)) throw error
        // Written and unanswered, or a later part refused after earlier ones left: sending
        // again could deliver it (or its first parts) twice.
        if ((error.pduWritten && !error.cms && !error.cme && error.result !== 'ERROR') || index > 0) {
          this.#log(`SMS ${order.messageId}: part ${index + 1} of ${parts.length}: ${error.message}; whether it left is unknown`)
          return { ok: false, reason: 'OUTCOME_UNKNOWN' }
        }
        return { ok: false, reason: sendFailureReason(error) }
      }
    }
    if (references.length === parts.length) {
      this.#tracker.forgetSentBefore(this.#clock.nowMs() - KEEP_DELIVERIES_MS)
      this.#tracker.track(order.messageId, references, order.to, this.#clock.nowMs())
      this.#deliveriesChanged()
      const early = this.#earlyReports.filter((report) => references.includes(report.messageReference))
      if (early.length) {
        this.#clock.setTimer(EARLY_REPORT_DELAY_MS, () => {
          if (!this.#stopped) for (const report of early) this.#onStatusReport(report)
        })
      }
    }
    return { ok: true }
  }

  #deliveriesChanged() {
    this.#options.deliveries?.changed?.(this.#tracker.snapshot())
  }

  #nextReference(): number {
    if (this.#options.nextReference) return this.#options.nextReference() & 0xff
    this.#reference = (this.#reference + 1) & 0xff
    return this.#reference
  }

  // ---- Status ----

  async status(): Promise<DeviceStatus> {
    const at = this.#at
    if (!at || at.closed) return {}
    const lines = await at.command('AT+CSQ', { timeoutMs: this.#timeouts.commandMs }).catch(() => [] as string[])
    const csq = /^\+CSQ:\s*(\d+)/.exec(lines.find((line) => line.startsWith('+CSQ:')) ?? '')
    const bars = csq ? signalBars(Number(csq[1])) : null
    const operator = await this.#readOperator()
    if (operator) this.#operator = operator
    return bars === null ? {} : { signal: bars }
  }

  // ---- What the modem says on its own ----

  #onUnsolicited({ line, pdu }: Unsolicited) {
    if (this.#stopped) return
    const stored = /^\+C(?:MTI|DSI):\s*"?(\w+)"?\s*,\s*(\d+)/.exec(line)
    if (stored) return void this.#readStored({ store: stored[1], index: Number(stored[2]) })
    if (pdu === undefined || !/^\+C(MT|DS):/.test(line)) return
    // The network waits seconds for this acknowledgement: it goes before any waiting command.
    if (this.#acknowledge) void this.#at!.command('AT+CNMA', { urgent: true, timeoutMs: this.#timeouts.commandMs }).catch(() => {})
    this.#onPdu(pdu, null)
  }

  /** Reads one stored message (announced by +CMTI or +CDSI) and handles it. */
  async #readStored(stored: Stored) {
    try {
      const lines = await this.#inStore(stored.store, `AT+CMGR=${stored.index}`)
      const header = lines.findIndex((line) => line.startsWith('+CMGR:'))
      // An empty slot answers no +CMGR line (or +CMS ERROR 321, thrown): nothing to do.
      if (header === -1 || lines[header + 1] === undefined) return
      this.#onPdu(lines[header + 1], stored)
    } catch (error) {
      // Left in the store; the start of the next run reads it with the rest.
      this.#log(`the SMS at ${stored.store ?? 'the store'} index ${stored.index} could not be read (${(error as Error).message})`)
    }
  }

  /** What the SIM held at start: received SMS and status reports, handled as if just announced. */
  async #readStoredAtStart() {
    let lines: string[]
    try {
      lines = await this.#at!.command('AT+CMGL=4', { timeoutMs: this.#timeouts.sendMs })
    } catch (error) {
      this.#log(`the stored SMS could not be listed (${(error as Error).message})`)
      return
    }
    for (let line = 0; line < lines.length; line++) {
      const header = /^\+CMGL:\s*(\d+)/.exec(lines[line])
      if (!header || lines[line + 1] === undefined) continue
      this.#onPdu(lines[++line], { store: this.#readStore, index: Number(header[1]) })
    }
  }

  #onPdu(pdu: string, stored: Stored | null) {
    if (stored) {
      const place = `${stored.store}:${stored.index}`
      if (this.#handling.has(place)) return
      this.#handling.add(place)
    }
    let message
    try {
      message = decodePdu(pdu)
    } catch (error) {
      // Kept where it is: nothing would get it back once deleted.
      this.#log(`an SMS ${stored ? `at index ${stored.index} ` : ''}could not be decoded (${(error as Error).message}); left on the modem`)
      if (stored) this.#handling.delete(`${stored.store}:${stored.index}`)
      return
    }
    if (message.type === 'status-report') {
      this.#onStatusReport(message)
      if (stored) void this.#delete([stored])
    } else if (message.type === 'deliver') {
      this.#onPart(message, stored)
    } else if (stored) {
      // An SMS-SUBMIT in the store was put there by someone else: left alone.
      this.#handling.delete(`${stored.store}:${stored.index}`)
    }
  }

  #onStatusReport(report: SmsStatusReport) {
    const outcome = this.#tracker.report(report.messageReference, report.status, report.recipient.value)
    if (!outcome) {
      // A fast network's report may come before the +CMGS answer naming its reference.
      if (this.#sendingParts && this.#earlyReports.length < EARLY_REPORTS_KEPT) this.#earlyReports.push(report)
      return
    }
    this.#deliveriesChanged()
    if (outcome.outcome === 'pending') return
    if (outcome.outcome === 'delivered') for (const listener of this.#delivered) listener(outcome.messageId)
    else for (const listener of this.#deliveryFailed) listener(outcome.messageId, outcome.code)
  }

  #onPart(sms: SmsDeliver, stored: Stored | null) {
    if (sms.binary) {
      // Data SMS (ringtones, configuration, MMS notices) are no text for the gateway.
      if (stored) void this.#delete([stored])
      return
    }
    const key = partKey(sms)
    const waiting = key ? this.#parts.get(key) : undefined
    if (waiting) {
      // A part that came again: its copy is deleted with the message.
      if (stored) waiting.push(stored)
      return
    }
    const whole = this.#reassembly.add(sms)
    if (!whole) {
      this.#parts.set(key!, stored ? [stored] : [])
      this.#clock.setTimer(this.#timeouts.reassemblyMs, () => this.#expire())
      return
    }
    const places = whole.parts.flatMap((part) => {
      const partStored = this.#takeParts(part)
      return part === sms && stored ? [...partStored, stored] : partStored
    })
    this.#deliver(whole, places)
  }

  #takeParts(part: SmsDeliver): Stored[] {
    const key = partKey(part)
    if (!key) return []
    const stored = this.#parts.get(key) ?? []
    this.#parts.delete(key)
    return stored
  }

  #expire() {
    for (const incomplete of this.#reassembly.expire()) {
      this.#deliver(
        incomplete,
        incomplete.parts.flatMap((part) => this.#takeParts(part))
      )
    }
  }

  #deliver(whole: ReassembledSms, stored: Stored[]) {
    const first = whole.parts[0]
    const sms: InboundSms = {
      ref: `modem-${inboundDigest(whole)}`,
      from: whole.from.value,
      body: whole.complete ? whole.text : withGaps(whole),
      receivedAt: new Date(first.sentAt?.at.getTime() ?? this.#clock.nowMs()).toISOString(),
      simSlot: 0,
    }
    if (!this.#inbound.length) this.#unheard.push({ sms, stored })
    else void this.#hand(sms, stored)
  }

  /** Hands an SMS to the listeners; deletes it from the modem once every one said it is safe. */
  async #hand(sms: InboundSms, stored: Stored[]) {
    try {
      await Promise.all(this.#inbound.map((listener) => listener(sms)))
    } catch {
      return
    }
    await this.#delete(stored)
  }

  async #delete(stored: Stored[]) {
    for (const place of stored) {
      if (this.#stopped) return
      try {
        await this.#inStore(place.store, `AT+CMGD=${place.index}`)
        this.#handling.delete(`${place.store}:${place.index}`)
      } catch (error) {
        this.#log(`a stored SMS could not be deleted (${(error as Error).message})`)
      }
    }
  }

  /**
   * A command on one store: AT+CMGR and AT+CMGD act on the first store of AT+CPMS, switched
   * first when the message is elsewhere (a status report in `SR`). Both are queued at once, so
   * no other command comes between.
   */
  async #inStore(store: string | null, command: string): Promise<string[]> {
    const at = this.#at!
    const switching = store && store !== this.#readStore ? at.command(`AT+CPMS="${store}"`, { timeoutMs: this.#timeouts.commandMs }) : null
    if (switching) this.#readStore = store
    const answer = at.command(command, { timeoutMs: this.#timeouts.commandMs })
    if (switching) {
      const [switched] = await Promise.allSettled([switching, answer])
      if (switched.status === 'rejected') {
        this.#readStore = null
        throw switched.reason
      }
    }
    return answer
  }

  #log(line: string) {
    this.#options.log?.(line)
  }
}

/** rssi 0-31 (99 unknown, TS 27.007 clause 8.5) as bars the way Android draws GSM signal. */
export function signalBars(rssi: number): number | null {
  if (rssi === 99 || rssi < 0 || rssi > 31) return null
  return rssi >= 12 ? 4 : rssi >= 8 ? 3 : rssi >= 5 ? 2 : rssi >= 3 ? 1 : 0
}

/** What ties a part to its message and its place in it; null for an SMS in one part. */
function partKey(sms: SmsDeliver): string | null {
  const concatenation = sms.concatenation
  if (!concatenation || concatenation.total === 1) return null
  return [sms.from.kind, sms.from.value, concatenation.referenceBits, concatenation.reference, concatenation.total, concatenation.sequence].join('\u0000')
}

/**
 * The SMS's ref, the same each time the same SMS is read (a restart reads again what the
 * gateway never acknowledged): from what the service centre put in it, not the store index,
 * which the modem gives again to later SMS.
 */
function inboundDigest(whole: ReassembledSms): string {
  const parts = whole.parts.map((part) => [part.sentAt?.at.toISOString() ?? null, part.concatenation?.reference ?? null, part.concatenation?.sequence ?? null, part.text])
  return createHash('sha256')
    .update(JSON.stringify([whole.from.kind, whole.from.value, parts]))
    .digest('hex')
    .slice(0, 24)
}

/** The text of an SMS whose parts did not all come: each missing part marked where it belongs. */
function withGaps(whole: ReassembledSms): string {
  const total = whole.parts[0].concatenation!.total
  const bySequence = new Map(whole.parts.map((part) => [part.concatenation!.sequence, part.text]))
  let text = ''
  for (let sequence = 1; sequence <= total; sequence++) text += bySequence.get(sequence) ?? `[part ${sequence}/${total} missing]`
  return text
}
