import { inject } from '@adonisjs/core'
import db from '@adonisjs/lucid/services/db'
import emitter from '@adonisjs/core/services/emitter'
import { Clock } from '#core/time/clock'
import { PhoneNumbers } from '#core/phone_numbers/phone_numbers'
import { SettingsStore } from '#core/settings/settings_store'
import { MessageLedger } from '#modules/messages/public'
import { PhonePresence, LAST_SEEN_RESOLUTION_MS } from '#modules/devices/services/phone_presence'
import type { UpFrame } from '#modules/devices/services/device_hub'
import { affectedRows } from '#core/database/affected_rows'
import { ReportQueue } from '#modules/devices/services/report_queue'

/** Spec, Events: device.low_battery at 15 % or below, once per crossing. */
export const LOW_BATTERY_PERCENT = 15

/** A frame taken in: `stored` resolves once what it says is stored (then it may be acked). */
export interface TakenFrame {
  stored: Promise<void>
}

const STORED: TakenFrame = { stored: Promise.resolve() }

/**
 * An SMS a phone reported, kept even when the frame lacks a field: refusing it would make the
 * phone send it again on every connection, and dropping it after an ack would lose the SMS.
 * The frame's own id stands in for a missing `ref` (a repeated frame keeps its id).
 */
function inboundOf(frame: UpFrame): UpFrame & { ref: string; from: string; body: string } {
  const text = (value: unknown) => (typeof value === 'string' && value.trim() ? value : null)
  return { ...frame, ref: text(frame.ref) ?? `frame:${frame.id}`, from: text(frame.from) ?? 'unknown', body: typeof frame.body === 'string' ? frame.body : '' }
}

function changed(result: unknown): boolean {
  return affectedRows(result) > 0
}

/**
 * What phones report (docs/device-protocol.md, frames up): each is stored before it is announced,
 * and a report repeated after a reconnect changes nothing twice (every update is guarded by the
 * state it moves from). Reports about orders go through the report queue, which stores those of
 * every phone together; the rest is stored here, frame by frame.
 */
@inject()
export class PhoneReports {
  constructor(
    private clock: Clock,
    private presence: PhonePresence,
    private settings: SettingsStore,
    private phoneNumbers: PhoneNumbers,
    private queue: ReportQueue,
    private ledger: MessageLedger
  ) {}

  async connected(deviceId: number) {
    await this.#seen(deviceId, true)
  }

  async disconnected(deviceId: number) {
    const updated = await db.from('devices').where('id', deviceId).where('status', 'online').update({ status: 'offline' })
    if (changed(updated)) await emitter.emit('device.offline', this.#deviceEvent(deviceId, 'offline'))
  }

  /** Takes a frame in, in the order the phone sent it; order reports are stored with others. */
  async frame(deviceId: number, frame: UpFrame): Promise<TakenFrame> {
    await this.#seen(deviceId, false)
    const messageId = typeof frame.messageId === 'string' && /^\d{1,15}$/.test(frame.messageId) ? Number(frame.messageId) : null
    const at = this.clock.now()
    switch (frame.type) {
      case 'hello':
        if (typeof frame.appVersion === 'string') await db.from('devices').where('id', deviceId).update({ app_version: frame.appVersion.slice(0, 40) })
        return STORED
      case 'status':
        await this.#status(deviceId, frame)
        return STORED
      case 'accepted':
      case 'sent':
      case 'delivered':
        return messageId ? { stored: this.queue.add({ kind: frame.type, deviceId, messageId, at }) } : STORED
      case 'failed': {
        if (!messageId) return STORED
        const { maxAttempts } = await this.settings.get('sending')
        const reason = typeof frame.reason === 'string' ? frame.reason : 'GENERIC_FAILURE'
        const errorCode = reason.replace(/[^A-Z0-9_]/gi, '_').slice(0, 40).toUpperCase() || 'GENERIC_FAILURE'
        return { stored: this.queue.add({ kind: 'failed', deviceId, messageId, at, errorCode, maxAttempts }) }
      }
      case 'inbound':
        await this.#inbound(deviceId, inboundOf(frame))
        return STORED
      default:
        // heartbeat, and types a newer agent knows: proof of life only.
        return STORED
    }
  }

  /** Any frame proves the phone alive: online again if it was offline. */
  async #seen(deviceId: number, connecting: boolean) {
    const now = this.clock.nowMs()
    this.presence.lastFrameAt.set(deviceId, now)
    const written = this.presence.lastSeenWritten.get(deviceId) ?? 0
    if (!connecting && now - written < LAST_SEEN_RESOLUTION_MS) return
    this.presence.lastSeenWritten.set(deviceId, now)
    const at = new Date(now).toISOString()
    await db.from('devices').where('id', deviceId).update({ last_seen_at: at })
    const cameOnline = await db.from('devices').where('id', deviceId).where('status', 'offline').update({ status: 'online' })
    if (changed(cameOnline)) {
      await emitter.emit('device.online', this.#deviceEvent(deviceId, 'online'))
      await emitter.emit('devices:available', { deviceId })
    }
  }

  async #status(deviceId: number, frame: UpFrame) {
    const battery = frame.battery as { level?: unknown; charging?: unknown } | undefined
    const level = typeof battery?.level === 'number' ? Math.max(0, Math.min(100, Math.round(battery.level))) : undefined
    const signal = typeof frame.signal === 'number' ? Math.max(0, Math.min(4, Math.round(frame.signal))) : undefined
    const before = await db.from('devices').where('id', deviceId).select('battery_level', 'battery_charging', 'signal').first()
    const update: Record<string, unknown> = {}
    if (level !== undefined) update.battery_level = level
    if (typeof battery?.charging === 'boolean') update.battery_charging = battery.charging ? 1 : 0
    if (signal !== undefined) update.signal = signal
    const changes = Object.entries(update).some(([column, value]) => before?.[column] !== value)
    if (Object.keys(update).length) await db.from('devices').where('id', deviceId).update(update)
    if (changes) await emitter.emit('devices:status_changed', { deviceId })
    const previous = before?.battery_level
    if (level !== undefined && level <= LOW_BATTERY_PERCENT && (previous === null || previous === undefined || previous > LOW_BATTERY_PERCENT)) {
      await emitter.emit('device.low_battery', { id: String(deviceId), deviceId: String(deviceId), at: this.clock.now() })
    }
  }

  /** An SMS arrived: one message per phone reference, in the number's conversation. */
  async #inbound(deviceId: number, frame: UpFrame & { ref: string; from: string; body: string }) {
    let phone: string
    try {
      // Phones often report a local sender in its dialled form (0612345678): completed with
      // Settings > Reception's prefix, it joins the number's one conversation. Only a number
      // dialled with the trunk 0 is completed: a short code (36665) would pass as "possible".
      const from = frame.from.trim()
      const localPrefix = from.startsWith('0') ? (await this.settings.get('reception')).localPrefix : null
      phone = this.phoneNumbers.normalize(from, localPrefix)
    } catch {
      // Short codes and alphanumeric senders are kept as the phone reported them.
      phone = frame.from.trim().slice(0, 16)
    }
    const now = this.clock.now()
    // The phone's clock may be off: a time from the future is taken as now, so the SMS does not
    // stay at the top of every list.
    const reported = typeof frame.receivedAt === 'string' ? Date.parse(frame.receivedAt) : Number.NaN
    const receivedAt = Number.isNaN(reported) || reported > now.getTime() ? now : new Date(reported)
    await this.ledger.storeInbound({
      deviceId,
      ref: frame.ref.slice(0, 100),
      phone,
      body: frame.body,
      simSlot: frame.simSlot === 1 ? 1 : 0,
      receivedAt,
      at: now,
    })
  }

  #deviceEvent(deviceId: number, status: 'online' | 'offline') {
    return { id: String(deviceId), deviceId: String(deviceId), status, at: this.clock.now() }
  }
}

declare module '@adonisjs/core/types' {
  interface EventsList {
    /** A phone can take orders (it connected or came back): the dispatcher wakes. */
    'devices:available': { deviceId: number }
    /** A failed attempt is due again at `at`. */
    'devices:retry_due': { at: Date }
    /** Battery or signal changed (the dashboards' Phones page shows them live). */
    'devices:status_changed': { deviceId: number }
  }
}
