import { execFile } from 'node:child_process'
import { openSync, closeSync, constants } from 'node:fs'
import { ReadStream, WriteStream } from 'node:tty'
import { promisify } from 'node:util'
import type { DeviceStatus, InboundSms, SendOrder, SendOutcome, SmsDriver } from '../sms_driver.js'

const run = promisify(execFile)
const CTRL_Z = '\x1a'

export interface ModemOptions {
  /** The serial device, e.g. /dev/ttyUSB2. */
  path: string
  /** Set the line speed with stty first (real modems); omit for a pseudo-terminal. */
  baudRate?: number
  /** How long one AT command may take (default 30 s: sending can be slow). */
  commandTimeoutMs?: number
}

interface Pending {
  command: string
  lines: string[]
  resolve: (lines: string[]) => void
  reject: (error: Error) => void
  timer: NodeJS.Timeout
  /** Text to send after the modem's "> " prompt (AT+CMGS). */
  body?: string
}

/**
 * A serial GSM modem through AT commands (3GPP TS 27.005, text mode): sends with AT+CMGS,
 * asks for status reports and reads them as +CDS, reads new SMS when +CMTI announces them,
 * and reports signal from AT+CSQ. One command at a time, answers read line by line.
 */
export class AtModemDriver implements SmsDriver {
  #fd: number | null = null
  #input: ReadStream | null = null
  #output: WriteStream | null = null
  #buffer = ''
  #queue: Pending[] = []
  #current: Pending | null = null
  #inbound: Array<(sms: InboundSms) => void> = []
  #delivered: Array<(messageId: string) => void> = []
  /** Message reference of each sent SMS → its messageId, for status reports. */
  #references = new Map<number, string>()

  constructor(private options: ModemOptions) {}

  sims() {
    return [{ slot: 0, label: 'Modem' }]
  }

  async start() {
    if (this.options.baudRate) await run('stty', ['-F', this.options.path, String(this.options.baudRate), 'raw', '-echo', '-hupcl'])
    this.#fd = openSync(this.options.path, constants.O_RDWR | constants.O_NOCTTY)
    this.#input = new ReadStream(this.#fd)
    this.#output = new WriteStream(this.#fd)
    this.#input.setEncoding('latin1')
    this.#input.on('data', (chunk: string) => this.#onData(chunk))
    for (const command of ['ATE0', 'AT+CMGF=1', 'AT+CSCS="GSM"', 'AT+CSMP=49,167,0,0', 'AT+CNMI=2,1,0,1,0']) await this.#command(command)
  }

  stop() {
    this.#input?.destroy()
    this.#output?.destroy()
    if (this.#fd !== null) {
      try {
        closeSync(this.#fd)
      } catch {}
    }
    this.#fd = null
  }

  async send(order: SendOrder): Promise<SendOutcome> {
    const number = order.to.replace(/[^+\d]/g, '')
    // Plain ASCII goes in the GSM character set; anything else as UCS2 (hex), which every
    // modem reads the same way, rather than guessing its GSM mapping of accents.
    const ucs2 = /[^\x20-\x7e\r\n]/.test(order.text) || /[@$_{}[\]~\\^|`]/.test(order.text)
    try {
      if (ucs2) {
        await this.#command('AT+CSCS="UCS2"')
        await this.#command('AT+CSMP=49,167,0,8')
      }
      const answer = ucs2
        ? await this.#command(`AT+CMGS="${toUcs2Hex(number)}"`, toUcs2Hex(order.text))
        : await this.#command(`AT+CMGS="${number}"`, order.text)
      const reference = answer.map((line) => /^\+CMGS:\s*(\d+)/.exec(line)).find(Boolean)
      if (reference) this.#references.set(Number(reference[1]), order.messageId)
      return { ok: true }
    } catch (error) {
      const cms = /\+CMS ERROR:\s*(\d+)/.exec((error as Error).message)
      return { ok: false, reason: cms ? `CMS_ERROR_${cms[1]}` : 'MODEM_ERROR' }
    } finally {
      if (ucs2) {
        await this.#command('AT+CSCS="GSM"').catch(() => {})
        await this.#command('AT+CSMP=49,167,0,0').catch(() => {})
      }
    }
  }

  async status(): Promise<DeviceStatus> {
    try {
      const answer = await this.#command('AT+CSQ')
      const csq = answer.map((line) => /^\+CSQ:\s*(\d+),/.exec(line)).find(Boolean)
      const rssi = csq ? Number(csq[1]) : 99
      // 0-31 (99: unknown) → 0-4 bars.
      return { signal: rssi === 99 ? 0 : Math.min(4, Math.ceil(rssi / 8)) }
    } catch {
      return {}
    }
  }

  onInbound(listener: (sms: InboundSms) => void) {
    this.#inbound.push(listener)
  }

  onDelivered(listener: (messageId: string) => void) {
    this.#delivered.push(listener)
  }

  #command(command: string, body?: string): Promise<string[]> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        if (this.#current === pending) this.#current = null
        reject(new Error(`${command.split('=')[0]}: no answer`))
        this.#next()
      }, this.options.commandTimeoutMs ?? 30_000)
      const pending: Pending = { command, lines: [], resolve, reject, timer, body }
      this.#queue.push(pending)
      if (!this.#current) this.#next()
    })
  }

  #next() {
    if (this.#current || !this.#queue.length) return
    this.#current = this.#queue.shift()!
    this.#output?.write(`${this.#current.command}\r`)
  }

  #onData(chunk: string) {
    this.#buffer += chunk
    // The send prompt comes without a line end.
    if (this.#current?.body !== undefined && /(^|\n)> ?$/.test(this.#buffer)) {
      this.#buffer = ''
      this.#output?.write(`${this.#current.body}${CTRL_Z}`)
      this.#current.body = undefined
      return
    }
    let end: number
    while ((end = this.#buffer.search(/\r?\n/)) !== -1) {
      const line = this.#buffer.slice(0, end).trim()
      this.#buffer = this.#buffer.slice(end + (this.#buffer[end] === '\r' ? 2 : 1))
      if (line) this.#onLine(line)
    }
  }

  #onLine(line: string) {
    if (line.startsWith('+CMTI:')) {
      const index = /,(\d+)/.exec(line)?.[1]
      if (index) void this.#readInbound(Number(index))
      return
    }
    if (line.startsWith('+CDS:')) {
      // +CDS: <fo>,<mr>,<ra>,<tora>,<scts>,<dt>,<st>; status 0 means delivered.
      const fields = line.slice(5).split(',').map((field) => field.trim())
      const messageId = this.#references.get(Number(fields[1]))
      if (messageId && Number(fields[fields.length - 1]) === 0) this.#delivered.forEach((listener) => listener(messageId))
      return
    }
    const current = this.#current
    if (!current) return
    if (line === 'OK') return this.#finish(current, null)
    if (line === 'ERROR' || line.startsWith('+CMS ERROR') || line.startsWith('+CME ERROR')) return this.#finish(current, line)
    current.lines.push(line)
  }

  #finish(pending: Pending, error: string | null) {
    clearTimeout(pending.timer)
    this.#current = null
    error ? pending.reject(new Error(error)) : pending.resolve(pending.lines)
    this.#next()
  }

  async #readInbound(index: number) {
    try {
      const answer = await this.#command(`AT+CMGR=${index}`)
      const header = answer.findIndex((line) => line.startsWith('+CMGR:'))
      if (header === -1) return
      // +CMGR: "REC UNREAD","+33612345678",,"26/05/04,09:30:00+08"
      const fields = [...answer[header].matchAll(/"([^"]*)"/g)].map((match) => match[1])
      const body = answer.slice(header + 1).join('\n')
      const sms: InboundSms = { ref: `modem-${fields[3] ?? ''}-${fields[1]}-${index}`, from: fields[1], body, receivedAt: new Date().toISOString(), simSlot: 0 }
      await this.#command(`AT+CMGD=${index}`)
      this.#inbound.forEach((listener) => listener(sms))
    } catch {
      // A message that cannot be read stays on the SIM; the next +CMTI tries again.
    }
  }
}

/** UTF-16 code units as 4 hex digits each: the modem's UCS2 character set. */
function toUcs2Hex(text: string): string {
  let hex = ''
  for (let index = 0; index < text.length; index++) hex += text.charCodeAt(index).toString(16).padStart(4, '0').toUpperCase()
  return hex
}
