import { inject } from '@adonisjs/core'
import emitter from '@adonisjs/core/services/emitter'
import { Clock } from '#core/time/clock'
import { PhoneNumbers } from '#core/phone_numbers/phone_numbers'
import { SettingsStore } from '#core/settings/settings_store'
import { PhonePresence, LAST_SEEN_RESOLUTION_MS } from '#modules/devices/services/phone_presence'
import { OrderBook } from '#modules/devices/services/order_book'
import { DeviceStore, type StoredStatus } from '#modules/devices/stores/device_store'
import type { InboundSms, PhoneStatus, Taken } from '#modules/devices/channels/phone_reports'

/**
 * `device.low_battery` is emitted when a phone's battery crosses down to this percent or below,
 * once per crossing (docs/webhooks.md, Phones).
 */
export const LOW_BATTERY_PERCENT = 15

const STORED: Taken = { stored: Promise.resolve() }

/**
 * Stores what phones report, whatever their channel (docs/phone-channels.md): each report is
 * stored before it is announced, and a report repeated after a reconnect changes nothing twice
 * (every update is guarded by the state it moves from). Reports about orders and received SMS
 * go to the order book (the messages' owner); the phone's own state is stored here, one by one.
 * Resolved from the container for each report (it reads the container's clock), through the
 * inlet every channel is given (`ReportInlet`).
 */
@inject()
export class PhoneReportStore {
  constructor(
    private clock: Clock,
    private presence: PhonePresence,
    private settings: SettingsStore,
    private phoneNumbers: PhoneNumbers,
    private orderBook: OrderBook,
    private devices: DeviceStore
  ) {}

  async connected(deviceId: number) {
    await this.#seen(deviceId, true)
  }

  async disconnected(deviceId: number) {
    if (await this.devices.markOffline(deviceId)) await emitter.emit('device.offline', this.#deviceEvent(deviceId, 'offline'))
  }

  async heartbeat(deviceId: number): Promise<Taken> {
    await this.#seen(deviceId, false)
    return STORED
  }

  async appVersion(deviceId: number, version: string): Promise<Taken> {
    await this.#seen(deviceId, false)
    await this.devices.recordAppVersion(deviceId, version.slice(0, 40))
    return STORED
  }

  async status(deviceId: number, status: PhoneStatus): Promise<Taken> {
    await this.#seen(deviceId, false)
    await this.#status(deviceId, status)
    return STORED
  }

  /** Taken, sent or delivered: the order book stores it (with other phones' reports). */
  async order(kind: 'accepted' | 'sent' | 'delivered', deviceId: number, messageId: number, orderedAt?: Date): Promise<Taken> {
    await this.#seen(deviceId, false)
    return { stored: this.orderBook.record({ kind, deviceId, messageId, at: this.clock.now(), orderedAt }) }
  }

  async failed(deviceId: number, messageId: number, reason: string, orderedAt?: Date): Promise<Taken> {
    await this.#seen(deviceId, false)
    const at = this.clock.now()
    const { maxAttempts } = await this.settings.get('sending')
    const errorCode = reason.replace(/[^A-Z0-9_]/gi, '_').slice(0, 40).toUpperCase() || 'GENERIC_FAILURE'
    return { stored: this.orderBook.record({ kind: 'failed', deviceId, messageId, at, errorCode, maxAttempts, orderedAt }) }
  }

  async inbound(deviceId: number, sms: InboundSms): Promise<Taken> {
    await this.#seen(deviceId, false)
    await this.#inbound(deviceId, sms)
    return STORED
  }

  /** Any report proves the phone alive: online again if it was offline. */
  async #seen(deviceId: number, connecting: boolean) {
    const now = this.clock.nowMs()
    this.presence.lastFrameAt.set(deviceId, now)
    const written = this.presence.lastSeenWritten.get(deviceId) ?? 0
    if (!connecting && now - written < LAST_SEEN_RESOLUTION_MS) return
    this.presence.lastSeenWritten.set(deviceId, now)
    if (await this.devices.recordSeen(deviceId, new Date(now).toISOString())) {
      await emitter.emit('device.online', this.#deviceEvent(deviceId, 'online'))
      await emitter.emit('devices:available', { deviceId })
    }
  }

  async #status(deviceId: number, status: PhoneStatus) {
    const level = typeof status.batteryLevel === 'number' ? Math.max(0, Math.min(100, Math.round(status.batteryLevel))) : undefined
    const signal = typeof status.signal === 'number' ? Math.max(0, Math.min(4, Math.round(status.signal))) : undefined
    const before = await this.devices.statusOf(deviceId)
    const reported: Partial<StoredStatus> = {}
    if (level !== undefined) reported.batteryLevel = level
    if (typeof status.charging === 'boolean') reported.charging = status.charging
    if (signal !== undefined) reported.signal = signal
    const changes = (Object.keys(reported) as Array<keyof StoredStatus>).some((field) => before?.[field] !== reported[field])
    await this.devices.recordStatus(deviceId, reported)
    if (changes) await emitter.emit('devices:status_changed', { deviceId })
    const previous = before?.batteryLevel
    if (level !== undefined && level <= LOW_BATTERY_PERCENT && (previous === null || previous === undefined || previous > LOW_BATTERY_PERCENT)) {
      await emitter.emit('device.low_battery', { id: String(deviceId), deviceId: String(deviceId), at: this.clock.now() })
    }
  }

  /** An SMS arrived: one message per phone reference, in the number's conversation. */
  async #inbound(deviceId: number, sms: InboundSms) {
    let phone: string
    try {
      // Phones often report a local sender in its dialled form (0612345678): completed with
      // Settings > Reception's prefix, it joins the number's one conversation. Only a number
      // dialled with the trunk 0 is completed: a short code (36665) would pass as "possible".
      const from = sms.from.trim()
      const localPrefix = from.startsWith('0') ? (await this.settings.get('reception')).localPrefix : null
      phone = this.phoneNumbers.normalize(from, localPrefix)
    } catch {
      // Short codes and alphanumeric senders are kept as the phone reported them.
      phone = sms.from.trim().slice(0, 16)
    }
    const now = this.clock.now()
    // The phone's clock may be off: a time from the future is taken as now, so the SMS does not
    // stay at the top of every list.
    const reported = sms.receivedAt?.getTime() ?? Number.NaN
    const receivedAt = Number.isNaN(reported) || reported > now.getTime() ? now : new Date(reported)
    await this.orderBook.storeInbound({
      deviceId,
      ref: sms.ref.slice(0, 100),
      phone,
      body: sms.body,
      simSlot: sms.simSlot === 1 ? 1 : 0,
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
    /** Battery or signal changed (the dashboards' Phones page shows them live). */
    'devices:status_changed': { deviceId: number }
  }
}
