import type { ModemClock, ModemTimer } from './clock.js'
import type { ModemPort } from './serial_port.js'

const CTRL_Z = '\x1a'
const ESC = '\x1b'

/** How long a command may take when the caller names no other bound. */
export const COMMAND_TIMEOUT_MS = 10_000

/**
 * A command that did not end in OK. `step` names the command without its arguments (AT+CPIN
 * carries the PIN, AT+CMGS a PDU): it is what errors and logs show.
 */
export class AtError extends Error {
  constructor(
    readonly step: string,
    /** The final result (`ERROR`, `+CMS ERROR: 330`, `+CME ERROR: 10`), or `no answer`, or `port closed`. */
    readonly result: string,
    /** Whether the PDU had been written when it happened (AT+CMGS): the SMS may then have left. */
    readonly pduWritten = false
  ) {
    super(`${step}: ${result}`)
  }

  /** The +CMS ERROR number, or null. */
  get cms(): number | null {
    const match = /^\+CMS ERROR:\s*(\d+)/.exec(this.result)
    return match ? Number(match[1]) : null
  }

  /** The +CME ERROR number, or null. */
  get cme(): number | null {
    const match = /^\+CME ERROR:\s*(\d+)/.exec(this.result)
    return match ? Number(match[1]) : null
  }

  get timedOut(): boolean {
    return this.result === 'no answer'
  }
}

export interface CommandOptions {
  /** The name in errors; by default the command up to its `=` or `?`. */
  step?: string
  /** How long the final result may take (after the PDU, for AT+CMGS). */
  timeoutMs?: number
  /** AT+CMGS: written after the `> ` prompt, then Ctrl-Z. */
  pdu?: string
  /** AT+CMGS: how long the prompt may take. */
  promptTimeoutMs?: number
  /** Goes before the commands waiting (AT+CNMA, which the network awaits within seconds). */
  urgent?: boolean
  /** Written even while the channel is held (the reset's own commands). */
  whileHeld?: boolean
}

interface Pending {
  command: string
  step: string
  options: CommandOptions
  lines: string[]
  resolve: (lines: string[]) => void
  reject: (error: AtError) => void
  timer: ModemTimer | null
  /** AT+CMGS: the prompt came and the PDU was written. */
  pduWritten: boolean
  /** The resynchronisation marker: its answer is told from a late one by its +CMEE: line. */
  marker?: { seen: boolean }
}

/**
 * After a command timed out, the answer may still come and would be taken as the next
 * command's. AT+CMEE? answers a line no other command the driver sends does: everything up to
 * that line and the OK after it is the past.
 */
const MARKER = 'AT+CMEE?'

/** A line the modem sent of its own accord; `pdu` is the line that follows `+CMT:` and `+CDS:` in PDU mode. */
export interface Unsolicited {
  line: string
  pdu?: string
}

/**
 * AT commands over a modem's byte stream (3GPP TS 27.007 / 27.005): one command at a time,
 * its answer read line by line up to the final result, the modem's echo skipped (a modem starts
 * with echo on), and the lines it sends on its own (+CMTI, +CDS with its PDU...) handed to the
 * listener whether or not a command is under way. Every wait is bounded on the given clock.
 */
export class AtChannel {
  #buffer = ''
  #queue: Pending[] = []
  #current: Pending | null = null
  /** A +CMT: or +CDS: line whose PDU is the next line. */
  #pduOf: string | null = null
  #closed = false
  #unsolicited: Array<(message: Unsolicited) => void> = []
  #timeoutListeners: Array<(consecutive: number) => void> = []
  #closeListeners: Array<() => void> = []
  /** Commands unanswered in a row (the marker included); any final result sets it back to 0. */
  #consecutiveTimeouts = 0
  #resync = false
  #held = false

  constructor(
    private port: ModemPort,
    private clock: ModemClock,
    private markerTimeoutMs = COMMAND_TIMEOUT_MS
  ) {
    port.onData((text) => this.#onData(text))
    port.onClose(() => this.#onClose())
  }

  /** Called after each command left unanswered, with how many were in a row. */
  onTimeout(listener: (consecutive: number) => void) {
    this.#timeoutListeners.push(listener)
  }

  /** Called once when the port goes away by itself (not after close()). */
  onClose(listener: () => void) {
    this.#closeListeners.push(listener)
  }

  /** No command under way nor waiting. */
  get idle(): boolean {
    return !this.#current && !this.#queue.length
  }

  /** Only `whileHeld` commands are written until release(); the others wait their turn. */
  hold() {
    this.#held = true
  }

  release() {
    this.#held = false
    this.#next()
  }

  /** Fails the commands waiting (not the one under way): nothing of theirs was written. */
  failQueued(result: string) {
    for (const each of this.#queue.splice(0)) each.reject(new AtError(each.step, result))
  }

  onUnsolicited(listener: (message: Unsolicited) => void) {
    this.#unsolicited.push(listener)
  }

  get closed(): boolean {
    return this.#closed
  }

  /** Sends a command; resolves with the lines before OK, rejects with an AtError otherwise. */
  command(command: string, options: CommandOptions = {}): Promise<string[]> {
    const step = options.step ?? /^[^=?]*/.exec(command)![0]
    return new Promise((resolve, reject) => {
      const pending: Pending = { command, step, options, lines: [], resolve, reject, timer: null, pduWritten: false }
      if (this.#closed) return reject(new AtError(step, 'port closed'))
      if (options.urgent) this.#queue.unshift(pending)
      else this.#queue.push(pending)
      this.#next()
    })
  }

  close() {
    this.#closed = true
    this.port.close()
    this.#failAll('port closed')
  }

  #next() {
    if (this.#current || this.#closed) return
    if (this.#resync) {
      this.#resync = false
      const marker: Pending = { command: MARKER, step: `${MARKER} (resync)`, options: { timeoutMs: this.markerTimeoutMs }, lines: [], resolve: () => {}, reject: () => {}, timer: null, pduWritten: false, marker: { seen: false } }
      this.#current = marker
      this.#arm(marker, this.markerTimeoutMs)
      this.port.write(`${MARKER}\r`)
      return
    }
    const at = this.#held ? this.#queue.findIndex((each) => each.options.whileHeld) : 0
    if (at === -1 || !this.#queue.length) return
    const pending = this.#queue.splice(at, 1)[0]
    this.#current = pending
    const waitsForPrompt = pending.options.pdu !== undefined
    this.#arm(pending, waitsForPrompt ? (pending.options.promptTimeoutMs ?? COMMAND_TIMEOUT_MS) : (pending.options.timeoutMs ?? COMMAND_TIMEOUT_MS))
    this.port.write(`${pending.command}\r`)
  }

  #arm(pending: Pending, ms: number) {
    pending.timer?.cancel()
    pending.timer = this.clock.setTimer(ms, () => {
      if (this.#current !== pending) return
      // A modem still showing the prompt would take the next command as PDU text: ESC ends it
      // without sending (TS 27.005 clause 3.5.1).
      if (pending.options.pdu !== undefined && !pending.pduWritten) this.port.write(ESC)
      // One marker per command unanswered: a marker unanswered leaves the way to what the
      // driver does next (ATZ), which a marker after each marker would starve.
      if (!pending.marker) this.#resync = true
      const consecutive = ++this.#consecutiveTimeouts
      this.#finish(pending, new AtError(pending.step, 'no answer', pending.pduWritten))
      for (const listener of this.#timeoutListeners) listener(consecutive)
    })
  }

  #finish(pending: Pending, error: AtError | null) {
    pending.timer?.cancel()
    if (this.#current === pending) this.#current = null
    if (error) pending.reject(error)
    else pending.resolve(pending.lines)
    this.#next()
  }

  #onClose() {
    if (this.#closed) return
    this.#closed = true
    this.#failAll('port closed')
    for (const listener of this.#closeListeners) listener()
  }

  #failAll(result: string) {
    const pending = [...(this.#current ? [this.#current] : []), ...this.#queue.splice(0)]
    this.#current = null
    for (const each of pending) {
      each.timer?.cancel()
      each.reject(new AtError(each.step, result, each.pduWritten))
    }
  }

  #onData(text: string) {
    this.#buffer += text
    let end: number
    while ((end = this.#buffer.search(/[\r\n]/)) !== -1) {
      const line = this.#buffer.slice(0, end).trim()
      this.#buffer = this.#buffer.slice(end + 1)
      if (line) this.#onLine(line)
    }
    // The send prompt comes without a line end: "> " alone on what is left.
    const current = this.#current
    if (current?.options.pdu !== undefined && !current.pduWritten && /^\s*>\s?$/.test(this.#buffer)) {
      this.#buffer = ''
      current.pduWritten = true
      this.#arm(current, current.options.timeoutMs ?? COMMAND_TIMEOUT_MS)
      this.port.write(`${current.options.pdu}${CTRL_Z}`)
    }
  }

  #onLine(line: string) {
    if (this.#pduOf !== null) {
      const header = this.#pduOf
      this.#pduOf = null
      if (/^[0-9A-Fa-f]+$/.test(line)) return this.#emit({ line: header, pdu: line })
      // No PDU after all (a text-mode line, or noise): the header alone, and this line as usual.
      this.#emit({ line: header })
    }
    if (/^\+(CMT|CDS):/.test(line)) {
      this.#pduOf = line
      return
    }
    if (/^\+(CMTI|CDSI):/.test(line)) return this.#emit({ line })
    const current = this.#current
    if (!current) return this.#emit({ line })
    // The modem's echo of what was written (before ATE0 takes effect, or a modem that ignores it).
    if (current.marker) {
      if (/^\+CMEE:/.test(line)) current.marker.seen = true
      else if (line === 'OK' && current.marker.seen) {
        this.#consecutiveTimeouts = 0
        this.#finish(current, null)
      }
      return
    }
    if (line === current.command || (current.options.pdu !== undefined && line.replace(CTRL_Z, '') === current.options.pdu)) return
    if (line === 'OK' || line === 'ERROR' || /^\+CM[SE] ERROR:/.test(line)) this.#consecutiveTimeouts = 0
    if (line === 'OK') return this.#finish(current, null)
    if (line === 'ERROR' || /^\+CM[SE] ERROR:/.test(line)) return this.#finish(current, new AtError(current.step, line, current.pduWritten))
    current.lines.push(line)
  }

  #emit(message: Unsolicited) {
    for (const listener of this.#unsolicited) listener(message)
  }
}
