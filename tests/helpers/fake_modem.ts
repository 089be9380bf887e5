import { spawn } from 'node:child_process'
import { mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { createConnection, createServer, type Server, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import type { ModemPort } from '../../agent/src/modem/serial_port.js'
import { decodeSubmit, encodeDeliver, encodeStatusReport, type DeliverFields, type SmsSubmit, type StatusReportFields } from '../../agent/src/modem/pdu/index.js'

/**
 * A GSM modem in PDU mode, simulated behind a Unix socket: it reads AT commands as a modem does
 * (echo on until ATE0, the `> ` prompt of AT+CMGS and the PDU up to Ctrl-Z, numeric errors
 * after AT+CMEE=1), keeps SMS in its stores, and sends unsolicited lines (+CMTI, +CMT, +CDS,
 * +CDSI) when the test makes an SMS or a status report arrive. What it sends is written by the
 * codec's encodeDeliver / encodeStatusReport, what it receives read by decodeSubmit.
 */
export interface FakeModemOptions {
  /** The SIM's PIN, asked for until entered; null: no PIN. */
  pin?: string | null
  /** Successive AT+CREG? states (1 home, 2 searching, 3 denied, 5 roaming); the last repeats. */
  registration?: number[]
  /** false: AT+CEREG? answers ERROR (no LTE). */
  lte?: boolean
  /** AT+CSMS? service: 1 means +CMT and +CDS wait for AT+CNMA. */
  smsService?: 0 | 1
  /** The AT+CNMI settings it refuses (+CMS ERROR: 303). */
  refusedCnmi?: string[]
  /** The stores it has. */
  stores?: string[]
  rssi?: number
  operator?: string
  /** Answers AT+CMGF=0 with this error line instead of OK. */
  pduModeError?: string
  /** What ATI, AT+CGMM and AT+CIMI answer (a SIMCom-like ATI, IMEI included). */
  identity?: { manufacturer?: string; model?: string; revision?: string; imei?: string; imsi?: string }
}

export interface SubmittedPart {
  pdu: string
  /** The length AT+CMGS gave, and the TPDU's real length: a driver must make them equal. */
  declaredLength: number
  submit: SmsSubmit
  mr: number
}

interface StoredSms {
  stat: number
  pdu: string
}

/** What the modem does with a submitted PDU: `ok`, an error line, or `silent` (it hangs). */
export type SubmitAnswer = 'ok' | 'silent' | string

export class FakeModem {
  readonly socketPath: string
  readonly #folder: string
  readonly #server: Server
  #socket: Socket | null = null
  readonly #relays: Array<import('node:child_process').ChildProcess> = []
  readonly #connections = new Set<Socket>()
  readonly #links = new Set<string>()
  #buffer = ''
  /** The AT+CMGS length while its PDU is being typed. */
  #awaitingPdu: number | null = null
  #waiters: Array<() => void> = []
  #registration: number[]

  echo = true
  numericErrors = false
  pduMode = false
  pinEntered = false
  mr = 0
  readStore = 'SM'
  /** Every command line received, in order. */
  readonly commands: string[] = []
  readonly submitted: SubmittedPart[] = []
  /** Every raw write from the driver (ESC and Ctrl-Z included). */
  readonly received: string[] = []
  readonly stores = new Map<string, Map<number, StoredSms>>()
  /** Decides the answer to each submitted part (default: accepted). */
  onSubmit: (part: { submit: SmsSubmit; index: number }) => SubmitAnswer = () => 'ok'
  /**
   * Called with an accepted part before its `+CMGS: <mr>` and OK are written: what it makes the
   * modem say (a status report) comes before the send's answer, as a fast network can make it.
   */
  beforeAnswer: ((part: SubmittedPart) => void) | null = null
  /** true: reads everything and answers nothing (a hung modem). */
  silent = false
  /** No `> ` prompt after AT+CMGS (a modem stuck before the PDU). */
  noPrompt = false
  /** false while unplugged: the device cannot be opened. */
  present = true
  /** How many times ATZ was received. */
  resets = 0

  constructor(readonly options: FakeModemOptions = {}) {
    this.#folder = mkdtempSync(join(tmpdir(), 'fake-modem-'))
    this.socketPath = join(this.#folder, 'modem.sock')
    this.#registration = [...(options.registration ?? [1])]
    for (const store of options.stores ?? ['SM', 'ME', 'SR']) this.stores.set(store, new Map())
    this.#server = createServer((socket) => {
      // The newest connection is the modem's line (an agent restarted opens the device again).
      this.#socket = socket
      this.#connections.add(socket)
      socket.on('close', () => this.#connections.delete(socket))
      socket.setEncoding('latin1')
      socket.on('data', (text: string) => this.#onData(text))
      socket.on('error', () => {})
    })
  }

  static async start(options: FakeModemOptions = {}): Promise<FakeModem> {
    const modem = new FakeModem(options)
    await new Promise<void>((resolve) => modem.#server.listen(modem.socketPath, resolve))
    return modem
  }

  /** A port to this modem, for the driver's `open` option. */
  connect(): Promise<ModemPort> {
    if (!this.present) return Promise.reject(new Error('ENOENT: no such file or directory'))
    return new Promise((resolve, reject) => {
      const socket = createConnection(this.socketPath)
      socket.once('error', reject)
      socket.once('connect', () => {
        socket.setEncoding('latin1')
        const closeListeners: Array<() => void> = []
        socket.on('close', () => closeListeners.forEach((listener) => listener()))
        resolve({
          write: (text) => void socket.write(Buffer.from(text, 'latin1')),
          onData: (listener) => void socket.on('data', listener),
          onClose: (listener) => void closeListeners.push(listener),
          close: () => socket.destroy(),
        })
      })
    })
  }

  /**
   * A serial device for this modem: a pseudo-terminal whose other end a small Python program
   * joins to the modem's socket, byte for byte. The agent opens it as it opens /dev/ttyUSB2
   * (stty, then the device), so the documented command runs as it does with a real modem.
   * With `link`, that path is made a symbolic link to the terminal, as udev makes
   * /dev/serial/by-id/...: a device opened again after unplug() and plugIn() keeps its path.
   */
  async serialDevice(link?: string): Promise<string> {
    const script = join(this.#folder, 'pty_relay.py')
    writeFileSync(script, PTY_RELAY)
    const relay = spawn('python3', [script, this.socketPath], { stdio: ['ignore', 'pipe', 'inherit'] })
    this.#relays.push(relay)
    const path = await new Promise<string>((resolve, reject) => {
      relay.once('error', reject)
      createInterface({ input: relay.stdout! }).once('line', resolve)
    })
    if (!link) return path
    // Replaced in one step, as udev does: the agent never finds the link half made.
    const temporary = `${link}.${process.pid}.tmp`
    rmSync(temporary, { force: true })
    symlinkSync(path, temporary)
    renameSync(temporary, link)
    this.#links.add(link)
    return link
  }

  /** Resolves once `predicate` holds, checked after each thing the modem reads. */
  async until(predicate: () => boolean): Promise<void> {
    while (!predicate()) await new Promise<void>((resolve) => this.#waiters.push(resolve))
  }

  /** Commands received that start with `prefix`. */
  sentCommands(prefix: string): string[] {
    return this.commands.filter((command) => command.startsWith(prefix))
  }

  /** An SMS arrives: stored and announced with +CMTI (answers its index), or handed over in a +CMT line. */
  deliver(fields: Partial<DeliverFields> & { from: string; text: string }, how: 'cmti' | 'cmt' = 'cmti', store = 'SM'): number | null {
    return this.deliverPdu(encodeDeliver({ sentAt: new Date('2026-05-04T09:30:00Z'), ...fields }), how, store)
  }

  /** An SMS-DELIVER PDU written elsewhere (another encoder) arrives, as deliver() does. */
  deliverPdu(pdu: string, how: 'cmti' | 'cmt' = 'cmti', store = 'SM'): number | null {
    if (how === 'cmt') {
      this.#write(`\r\n+CMT: ,${tpduLength(pdu)}\r\n${pdu}\r\n`)
      return null
    }
    const index = this.store(store, pdu, 0)
    this.#write(`\r\n+CMTI: "${store}",${index}\r\n`)
    return index
  }

  /** A status report arrives: in a +CDS line, or stored in SR and announced with +CDSI. */
  report(fields: Partial<StatusReportFields> & { messageReference: number; status: number }, how: 'cds' | 'cdsi' = 'cds') {
    const pdu = encodeStatusReport({
      recipient: '+33612345678',
      sentAt: new Date('2026-05-04T09:30:00Z'),
      dischargedAt: new Date('2026-05-04T09:30:05Z'),
      ...fields,
    })
    this.reportPdu(pdu, how)
  }

  /** An SMS-STATUS-REPORT PDU written elsewhere (a published one) arrives, as report() does. */
  reportPdu(pdu: string, how: 'cds' | 'cdsi' = 'cds') {
    if (how === 'cds') return this.#write(`\r\n+CDS: ${tpduLength(pdu)}\r\n${pdu}\r\n`)
    const index = this.store('SR', pdu, 0)
    this.#write(`\r\n+CDSI: "SR",${index}\r\n`)
  }

  /** Puts a PDU in a store without announcing it (what a SIM holds before the driver starts). */
  store(store: string, pdu: string, stat: number): number {
    const messages = this.stores.get(store)!
    const index = Math.max(0, ...messages.keys()) + 1
    messages.set(index, { stat, pdu })
    return index
  }

  /** Writes to the driver as the modem (a late answer). */
  say(text: string) {
    this.#write(text)
  }

  /** Answers now the last command received (one it was silent to). */
  answerLast() {
    this.#onCommand(this.commands.at(-1)!)
  }

  /**
   * Ends the connection as an unplugged modem would; it cannot be opened until plugIn(). Its
   * serial devices' links go away with it, as udev removes /dev/serial/by-id/... entries.
   */
  unplug() {
    this.present = false
    this.#socket?.destroy()
    for (const link of this.#links) rmSync(link, { force: true })
  }

  /** Plugged back: a modem just powered, echo on and settings lost. */
  plugIn() {
    this.present = true
    this.#powerOn()
  }

  #powerOn() {
    this.echo = true
    this.numericErrors = false
    this.pduMode = false
    this.silent = false
    this.#awaitingPdu = null
  }

  async stop() {
    for (const relay of this.#relays) relay.kill()
    for (const link of this.#links) rmSync(link, { force: true })
    for (const connection of this.#connections) connection.destroy()
    await new Promise<void>((resolve) => this.#server.close(() => resolve()))
    rmSync(this.#folder, { recursive: true, force: true })
  }

  #write(text: string) {
    this.#socket?.write(Buffer.from(text, 'latin1'))
  }

  #answer(...lines: string[]) {
    this.#write(lines.map((line) => `\r\n${line}\r\n`).join(''))
  }

  #error(code: number, kind: 'CMS' | 'CME' = 'CMS') {
    this.#answer(this.numericErrors ? `+${kind} ERROR: ${code}` : 'ERROR')
  }

  #onData(text: string) {
    this.received.push(text)
    this.#buffer += text
    for (;;) {
      if (this.#awaitingPdu !== null) {
        const end = this.#buffer.search(/[\x1a\x1b]/)
        if (end === -1) break
        const pdu = this.#buffer.slice(0, end).trim()
        const cancelled = this.#buffer[end] === '\x1b'
        this.#buffer = this.#buffer.slice(end + 1)
        if (this.echo) this.#write(pdu)
        const declaredLength = this.#awaitingPdu
        this.#awaitingPdu = null
        if (!cancelled) this.#onPdu(pdu, declaredLength)
        continue
      }
      const end = this.#buffer.indexOf('\r')
      if (end === -1) break
      const line = this.#buffer.slice(0, end).replace(/\n/g, '').trim()
      this.#buffer = this.#buffer.slice(end + 1)
      if (!line) continue
      if (this.echo) this.#write(`${line}\r`)
      this.commands.push(line)
      if (!this.silent) this.#onCommand(line)
    }
    for (const wake of this.#waiters.splice(0)) wake()
  }

  #onPdu(pdu: string, declaredLength: number) {
    let submit: SmsSubmit
    try {
      submit = decodeSubmit(pdu)
    } catch {
      return this.#error(304)
    }
    const index = this.submitted.length
    const answer = this.onSubmit({ submit, index })
    if (answer === 'silent') {
      this.silent = true
      this.submitted.push({ pdu, declaredLength, submit, mr: -1 })
      return
    }
    if (answer !== 'ok') {
      this.submitted.push({ pdu, declaredLength, submit, mr: -1 })
      return this.#answer(answer)
    }
    this.mr = (this.mr + 1) & 0xff
    const part = { pdu, declaredLength, submit, mr: this.mr }
    this.submitted.push(part)
    this.beforeAnswer?.(part)
    this.#answer(`+CMGS: ${this.mr}`, 'OK')
  }

  #onCommand(line: string) {
    const ok = () => this.#answer('OK')
    const locked = () => this.options.pin && !this.pinEntered
    const upper = line.toUpperCase()
    if (upper === 'ATZ') {
      this.resets++
      this.#powerOn()
      return ok()
    }
    if (upper === 'AT' || upper === 'AT+COPS=3,0') return ok()
    if (line === 'AT+CMEE?') return this.#answer(`+CMEE: ${this.numericErrors ? 1 : 0}`, 'OK')
    if (upper === 'ATE0' || upper === 'ATE1') {
      this.echo = upper === 'ATE1'
      return ok()
    }
    let match: RegExpExecArray | null
    if ((match = /^AT\+CMEE=(\d)$/.exec(line))) {
      this.numericErrors = match[1] !== '0'
      return ok()
    }
    const identity = { manufacturer: 'FAKE MODEMS LTD', model: 'FM-7600E', revision: 'FM7600E_V1.2', imei: '356938035643809', imsi: '208011234567890', ...this.options.identity }
    if (upper === 'ATI') return this.#answer(`Manufacturer: ${identity.manufacturer}`, `Model: ${identity.model}`, `Revision: ${identity.revision}`, `IMEI: ${identity.imei}`, 'OK')
    if (line === 'AT+CGMM') return this.#answer(identity.model, 'OK')
    if (line === 'AT+CIMI') return locked() ? this.#error(11, 'CME') : this.#answer(identity.imsi, 'OK')
    if (line === 'AT+CPIN?') return this.#answer(`+CPIN: ${locked() ? 'SIM PIN' : 'READY'}`, 'OK')
    if ((match = /^AT\+CPIN="?(\d+)"?$/.exec(line))) {
      if (!this.options.pin || this.pinEntered) return this.#error(3, 'CME')
      if (match[1] !== this.options.pin) return this.#error(16, 'CME')
      this.pinEntered = true
      return ok()
    }
    if (locked()) return this.#error(311)
    if ((match = /^AT\+CMGF=(\d)$/.exec(line))) {
      if (this.options.pduModeError) return this.#answer(this.options.pduModeError)
      this.pduMode = match[1] === '0'
      return ok()
    }
    if (line === 'AT+CSMS?') return this.#answer(`+CSMS: ${this.options.smsService ?? 0},1,1,1`, 'OK')
    if (line === 'AT+CREG?') {
      const state = this.#registration.length > 1 ? this.#registration.shift()! : this.#registration[0]
      return this.#answer(`+CREG: 0,${state}`, 'OK')
    }
    if (line === 'AT+CEREG?') return this.options.lte === false ? this.#answer('ERROR') : this.#answer('+CEREG: 0,4', 'OK')
    if (line.startsWith('AT+CNMI=')) return this.options.refusedCnmi?.includes(line.slice(8)) ? this.#error(303) : ok()
    if ((match = /^AT\+CPMS=(.*)$/.exec(line))) {
      const stores = [...match[1].matchAll(/"(\w+)"/g)].map((each) => each[1])
      if (!stores.length || stores.some((store) => !this.stores.has(store))) return this.#error(302)
      this.readStore = stores[0]
      const used = this.stores.get(stores[0])!.size
      return this.#answer(`+CPMS: ${used},30,${used},30,${used},30`, 'OK')
    }
    if (line === 'AT+COPS?') return this.#answer(`+COPS: 0,0,"${this.options.operator ?? 'Orange F'}",7`, 'OK')
    if (line === 'AT+CSQ') return this.#answer(`+CSQ: ${this.options.rssi ?? 23},99`, 'OK')
    if (line === 'AT+CNMA') return ok()
    if ((match = /^AT\+CMGS=(\d+)$/.exec(line))) {
      if (!this.pduMode) return this.#error(305)
      this.#awaitingPdu = Number(match[1])
      if (!this.noPrompt) this.#write('\r\n> ')
      return
    }
    if ((match = /^AT\+CMGR=(\d+)$/.exec(line))) {
      const sms = this.stores.get(this.readStore)!.get(Number(match[1]))
      if (!sms) return this.#error(321)
      const stat = sms.stat
      if (sms.stat === 0) sms.stat = 1
      return this.#answer(`+CMGR: ${stat},,${tpduLength(sms.pdu)}\r\n${sms.pdu}`, 'OK')
    }
    if ((match = /^AT\+CMGD=(\d+)$/.exec(line))) {
      this.stores.get(this.readStore)!.delete(Number(match[1]))
      return ok()
    }
    if (line === 'AT+CMGL=4') {
      const listed = [...this.stores.get(this.readStore)!.entries()].map(([index, sms]) => `+CMGL: ${index},${sms.stat},,${tpduLength(sms.pdu)}\r\n${sms.pdu}`)
      return this.#answer(...listed, 'OK')
    }
    this.#answer('ERROR')
  }
}

/** Joins a pseudo-terminal to the modem's socket; prints the terminal's path, then relays until either side ends. */
const PTY_RELAY = String.raw`
import os, socket, sys, tty, select
master, slave = os.openpty()
tty.setraw(slave)
link = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
link.connect(sys.argv[1])
print(os.ttyname(slave), flush=True)
while True:
    ready, _, _ = select.select([master, link], [], [])
    if master in ready:
        try:
            data = os.read(master, 4096)
        except OSError:
            data = b""
        if not data:
            break
        link.sendall(data)
    if link in ready:
        data = link.recv(4096)
        if not data:
            break
        os.write(master, data)
`

/** The TPDU's octets: the PDU without its service centre prefix. */
function tpduLength(pdu: string): number {
  const prefix = Number.parseInt(pdu.slice(0, 2), 16)
  return pdu.length / 2 - 1 - prefix
}
