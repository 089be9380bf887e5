import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import type { DeviceStatus, InboundSms, SendOrder, SendOutcome, SmsDriver } from '../sms_driver.js'

const run = promisify(execFile)

export interface TermuxOptions {
  sims?: Array<{ slot: number; label?: string; operator?: string; number?: string }>
  /** How often the inbox is read for new SMS (default 5 s). */
  pollEveryMs?: number
  /** Environment for the termux-api commands (tests put fakes first on PATH). */
  env?: NodeJS.ProcessEnv
}

interface TermuxSms {
  _id: number
  type: string
  number: string
  received: string
  body: string
}

/**
 * An Android phone running the agent under Termux, through termux-api's commands:
 * `termux-sms-send` to send, `termux-sms-list` (read every few seconds) for inbound SMS,
 * `termux-battery-status` for the battery. termux-api gives no delivery receipts, so messages
 * sent through it stay `sent`.
 */
export class TermuxDriver implements SmsDriver {
  #inbound: Array<(sms: InboundSms) => void> = []
  #lastSeenId: number | null = null
  #timer: NodeJS.Timeout | null = null

  constructor(private options: TermuxOptions = {}) {}

  sims() {
    return this.options.sims ?? [{ slot: 0 }]
  }

  async send(order: SendOrder): Promise<SendOutcome> {
    try {
      await run('termux-sms-send', ['-n', order.to, '-s', String(order.simSlot), order.text], { env: this.#env(), timeout: 60_000 })
      return { ok: true }
    } catch (error) {
      const code = (error as { code?: unknown }).code
      return { ok: false, reason: code === 'ENOENT' ? 'TERMUX_API_MISSING' : 'TERMUX_SEND_FAILED' }
    }
  }

  async status(): Promise<DeviceStatus> {
    try {
      const { stdout } = await run('termux-battery-status', [], { env: this.#env(), timeout: 10_000 })
      const battery = JSON.parse(stdout) as { percentage?: number; status?: string; plugged?: string }
      return {
        battery: {
          level: Number(battery.percentage ?? 0),
          charging: battery.status === 'CHARGING' || battery.status === 'FULL' || (battery.plugged ?? 'UNPLUGGED') !== 'UNPLUGGED',
        },
      }
    } catch {
      return {}
    }
  }

  onInbound(listener: (sms: InboundSms) => void) {
    this.#inbound.push(listener)
  }

  /** termux-api has no delivery receipts. */
  onDelivered(_listener: (messageId: string) => void) {}

  /** Starts reading the inbox; SMS already there when the agent starts are not reported. */
  async start() {
    await this.pollInbox()
    this.#timer = setInterval(() => void this.pollInbox(), this.options.pollEveryMs ?? 5000)
    this.#timer.unref()
  }

  stop() {
    if (this.#timer) clearInterval(this.#timer)
    this.#timer = null
  }

  /** Reads the inbox once and reports what is new since the last read. */
  async pollInbox(): Promise<void> {
    let messages: TermuxSms[]
    try {
      const { stdout } = await run('termux-sms-list', ['-t', 'inbox', '-l', '50'], { env: this.#env(), timeout: 20_000 })
      messages = JSON.parse(stdout)
    } catch {
      return
    }
    const newest = messages.reduce((max, sms) => Math.max(max, sms._id), this.#lastSeenId ?? -1)
    if (this.#lastSeenId !== null) {
      for (const sms of messages.filter((candidate) => candidate._id > this.#lastSeenId!).sort((a, b) => a._id - b._id)) {
        const inbound: InboundSms = {
          ref: `termux-${sms._id}`,
          from: sms.number,
          body: sms.body,
          receivedAt: new Date(sms.received.replace(' ', 'T')).toISOString(),
          simSlot: 0,
        }
        this.#inbound.forEach((listener) => listener(inbound))
      }
    }
    this.#lastSeenId = newest
  }

  #env() {
    return this.options.env ?? process.env
  }
}
