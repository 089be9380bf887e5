import { inject } from '@adonisjs/core'
import emitter from '@adonisjs/core/services/emitter'
import type { QueryClientContract } from '@adonisjs/lucid/types/database'
import { SettingsStore } from '#core/settings/settings_store'
import { PhoneChannels } from '#modules/devices/channels/phone_channels'
import type { PhoneOrder } from '#modules/devices/channels/phone_channel'
import { dayIn, keptRecentOrders, perSimDay, type UnsentOrder } from '#modules/devices/services/sim_usage'
import { applyTextOptions, effectiveTextOptions } from '#modules/devices/services/text_options'
import { DeviceStore } from '#modules/devices/stores/device_store'

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
    private settings: SettingsStore,
    private devices: DeviceStore
  ) {}

  /** The SIMs of the enabled, connected phones, with their use of the day of `now`. */
  async carriers(now: Date): Promise<Carrier[]> {
    const connected = this.phones.connectedDevices()
    if (!connected.length) return []
    const [sending, general] = [await this.settings.get('sending'), await this.settings.get('general')]
    const today = dayIn(sending.timezone, now)
    const sims = await this.devices.carriersOf(connected, today)
    const shapers = new Map<number, (body: string) => string>()
    return sims.map((sim) => {
      if (!shapers.has(sim.deviceId)) {
        const options = effectiveTextOptions(general, sim.textOptions)
        shapers.set(sim.deviceId, (body) => applyTextOptions(body, options))
      }
      return {
        deviceId: sim.deviceId,
        slot: sim.slot,
        dailyQuota: sim.dailyQuota,
        sentToday: sim.sentToday,
        recentOrders: sim.recentOrders,
        shapeText: shapers.get(sim.deviceId)!,
      }
    })
  }

  /** The SIM slots of a paired phone, connected or not; null when no phone has this id. */
  async simSlotsOf(deviceId: number): Promise<Set<number> | null> {
    return this.devices.simSlotsOf(deviceId)
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
      await this.devices.giveBack(perSimDay(unsent, timezone))
    }
    const perPhone = new Map<number, PhoneOrder[]>()
    for (const order of orders) {
      if (!stored.has(order.messageId)) continue
      const deviceId = order.carrier.deviceId
      if (!perPhone.has(deviceId)) perPhone.set(deviceId, [])
      perPhone.get(deviceId)!.push({ messageId: order.messageId, to: order.to, text: order.text, simSlot: order.carrier.slot, orderedAt: now })
    }
    for (const [deviceId, phoneOrders] of perPhone) this.phones.sendOrders(deviceId, phoneOrders)
    return stored.size
  }

  /**
   * Messages handed to this phone that are gone before it reported them (deleted, or cancelled
   * before it accepted them): a channel whose phone keeps its orders tells it to drop them (the
   * SMSGate app cancels what it has not started); the others have nothing to tell.
   */
  withdraw(deviceId: number, messageIds: number[]): void {
    this.phones.withdraw(deviceId, messageIds)
  }

  /**
   * The paired phones whose kind can take back an order they have not accepted yet
   * (`PhoneChannel.takesBackUnaccepted`): a message cancelled while it waits is taken back from
   * them too, and `withdraw` tells them. On the caller's client when it holds a transaction; no
   * statement when no kind can.
   */
  async phonesTakingBackUnaccepted(client?: QueryClientContract): Promise<number[]> {
    const kinds = this.phones.kindsTakingBackUnaccepted()
    return kinds.length ? this.devices.idsOfKinds(kinds, client) : []
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
    const freed = unsent.length ? await this.devices.giveBack(perSimDay(unsent, timezone)) : []
    return {
      announce: async () => {
        for (const deviceId of freed) await emitter.emit('devices:quota_changed', { deviceId })
      },
    }
  }

  /** The day's counts and the order times of every SIM used (DeviceStore.countOrders). */
  async #countUse(orders: CarrierOrder[], now: Date, timezone: string, perMinuteLimit: number | null) {
    const nowMs = now.getTime()
    const perSim = new Map<Carrier, number>()
    for (const { carrier } of orders) perSim.set(carrier, (perSim.get(carrier) ?? 0) + 1)
    const used = [...perSim].map(([carrier, count]) => ({
      deviceId: carrier.deviceId,
      slot: carrier.slot,
      count,
      recentOrders: keptRecentOrders(carrier.recentOrders, nowMs, perMinuteLimit),
    }))
    await this.devices.countOrders(used, dayIn(timezone, now))
  }
}
