import { inject } from '@adonisjs/core'
import db from '@adonisjs/lucid/services/db'
import emitter from '@adonisjs/core/services/emitter'
import { readConnection } from '#core/database/read_connection'
import { SettingsStore } from '#core/settings/settings_store'
import { PhoneChannels } from '#modules/devices/channels/phone_channels'
import type { PhoneOrder } from '#modules/devices/channels/phone_channel'
import { dayIn, giveBackSimUse, keptRecentOrders, parseRecentOrders, type UnsentOrder } from '#modules/devices/services/sim_usage'
import { applyTextOptions, effectiveTextOptions } from '#modules/devices/services/text_options'

/** A SIM of a connected, enabled phone, as a dispatch pass judges it. */
export interface Carrier {
  deviceId: number
  slot: number
  dailyQuota: number | null
  /** Handed out today, in the platform time zone; the pass counts its own orders in. */
  sentToday: number
  /** When the SIM was handed SMS lately (epoch ms, oldest first); the pass adds its own. */
  recentOrders: number[]
  /** The text as this phone sends it: its own text options, or Settings > General's. */
  shapeText(body: string): string
}

/** One message handed to a carrier. */
export interface CarrierOrder {
  carrier: Carrier
  messageId: number
  /** E.164. */
  to: string
  /** The text as it leaves (`Carrier.shapeText`). */
  text: string
}

/**
 * The phones as the owner of the messages sees them (docs/phone-channels.md): which SIMs can take
 * orders now and how much they were used, and handing orders out. What a SIM was handed is
 * counted here, on the SIMs' own rows, so a quota or a cadence holds whoever asks.
 */
@inject()
export class PhoneFleet {
  constructor(
    private phones: PhoneChannels,
    private settings: SettingsStore
  ) {}

  /** The SIMs of the enabled, connected phones, with their use of the day of `now`. */
  async carriers(now: Date): Promise<Carrier[]> {
    const connected = this.phones.connectedDevices()
    if (!connected.length) return []
    const [sending, general] = [await this.settings.get('sending'), await this.settings.get('general')]
    const today = dayIn(sending.timezone, now)
    // On the read connection, like the due messages: a pass's own writes come after it.
    const rows = await readConnection().rawQuery(
      `SELECT devices.id, devices.text_options, device_sims.slot, device_sims.daily_quota, device_sims.sent_today, device_sims.sent_day,
         device_sims.recent_orders
       FROM devices JOIN device_sims ON device_sims.device_id = devices.id
       WHERE devices.enabled = 1 AND devices.id IN (${connected.map(() => '?').join(', ')})
       ORDER BY devices.id ASC, device_sims.slot ASC`,
      connected
    )
    const shapers = new Map<number, (body: string) => string>()
    return rows.map((row: any) => {
      if (!shapers.has(row.id)) {
        const options = effectiveTextOptions(general, (row.text_options && JSON.parse(row.text_options)) || {})
        shapers.set(row.id, (body) => applyTextOptions(body, options))
      }
      return {
        deviceId: row.id,
        slot: row.slot,
        dailyQuota: row.daily_quota,
        sentToday: row.sent_day === today ? row.sent_today : 0,
        recentOrders: parseRecentOrders(row.recent_orders),
        shapeText: shapers.get(row.id)!,
      }
    })
  }

  /** The SIM slots of a paired phone, connected or not; null when no phone has this id. */
  async simSlotsOf(deviceId: number): Promise<Set<number> | null> {
    const rows =
      deviceId > 0
        ? await db.rawQuery('SELECT device_sims.slot FROM devices LEFT JOIN device_sims ON device_sims.device_id = devices.id WHERE devices.id = ?', [deviceId])
        : []
    return rows.length ? new Set(rows.filter((row: any) => row.slot !== null).map((row: any) => row.slot)) : null
  }

  /**
   * Hands a pass's orders out: the SIMs' use is counted first, then `store` records the orders
   * (answering those it stored: a message that changed meanwhile is not), an order not stored
   * has its count given back, and the stored ones go to their phones, each phone's in the order
   * given. A stored order is never lost and a sent one is always stored; a crash between the
   * statements leaves a count one pass high, never low, so a quota is never overshot. Answers
   * how many were stored.
   */
  async handOut(orders: CarrierOrder[], now: Date, store: (orders: CarrierOrder[]) => Promise<Set<number>>): Promise<number> {
    if (!orders.length) return 0
    const { timezone, simPerMinuteLimit } = await this.settings.get('sending')
    await this.#countUse(orders, now, timezone, simPerMinuteLimit)
    const stored = await store(orders)
    const dropped = orders.filter((order) => !stored.has(order.messageId))
    if (dropped.length) {
      const unsent = dropped.map((order) => ({ deviceId: order.carrier.deviceId, slot: order.carrier.slot, orderedAt: now.toISOString() }))
      await giveBackSimUse(db.connection(), unsent, timezone)
    }
    const perPhone = new Map<number, PhoneOrder[]>()
    for (const order of orders) {
      if (!stored.has(order.messageId)) continue
      const deviceId = order.carrier.deviceId
      if (!perPhone.has(deviceId)) perPhone.set(deviceId, [])
      perPhone.get(deviceId)!.push({ messageId: order.messageId, to: order.to, text: order.text, simSlot: order.carrier.slot })
    }
    for (const [deviceId, phoneOrders] of perPhone) this.phones.sendOrders(deviceId, phoneOrders)
    return stored.size
  }

  /** Sends a phone again the orders it has not accepted yet (it reconnected). */
  resend(deviceId: number, orders: PhoneOrder[]): void {
    if (orders.length) this.phones.sendOrders(deviceId, orders)
  }

  /**
   * Orders that turned out not to be sent (failed, or moved to another phone) give their SIMs'
   * counts of the day back; `announce` then says which phones got room under a quota, so the
   * messages waiting for one may go.
   */
  async giveBack(unsent: UnsentOrder[]): Promise<{ announce(): Promise<void> }> {
    const { timezone } = await this.settings.get('sending')
    const freed = unsent.length ? await giveBackSimUse(db.connection(), unsent, timezone) : []
    return {
      announce: async () => {
        for (const deviceId of freed) await emitter.emit('devices:quota_changed', { deviceId })
      },
    }
  }

  /** One statement per 100 SIMs: the day's counts and the order times of every SIM used. */
  async #countUse(orders: CarrierOrder[], now: Date, timezone: string, perMinuteLimit: number | null) {
    const nowMs = now.getTime()
    const today = dayIn(timezone, now)
    const perSim = new Map<Carrier, number>()
    for (const { carrier } of orders) perSim.set(carrier, (perSim.get(carrier) ?? 0) + 1)
    const sims = [...perSim]
    for (let start = 0; start < sims.length; start += 100) {
      const chunk = sims.slice(start, start + 100)
      await db.rawQuery(
        `WITH used(device_id, slot, count, recent_orders) AS (VALUES ${chunk.map(() => '(?, ?, ?, ?)').join(', ')})
         UPDATE device_sims SET sent_today = CASE WHEN sent_day = ? THEN sent_today + used.count ELSE used.count END, sent_day = ?,
           recent_orders = used.recent_orders
         FROM used
         WHERE device_sims.device_id = used.device_id AND device_sims.slot = used.slot`,
        [
          ...chunk.flatMap(([carrier, count]) => [carrier.deviceId, carrier.slot, count, JSON.stringify(keptRecentOrders(carrier.recentOrders, nowMs, perMinuteLimit))]),
          today,
          today,
        ]
      )
    }
  }
}
