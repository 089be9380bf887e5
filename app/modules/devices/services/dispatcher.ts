import { inject } from '@adonisjs/core'
import db from '@adonisjs/lucid/services/db'
import emitter from '@adonisjs/core/services/emitter'
import { Clock } from '#core/time/clock'
import { SettingsStore } from '#core/settings/settings_store'
import Device from '#modules/devices/models/device'
import { countSegments } from '#modules/messages/services/segment_counter'
import { DeviceHub } from '#modules/devices/services/device_hub'
import { applyTextOptions, effectiveTextOptions } from '#modules/devices/services/text_options'

/** Messages handed out per pass; the pass runs again at once while more are due. */
const PASS_SIZE = 200

/** Where round robin continues (a container singleton). */
export class RoutingCursor {
  next = 0
}

interface Carrier {
  device: Device
  slot: number
}

/**
 * Hands due messages (queued, scheduledAt and heldUntil passed, oldest first) to connected
 * phones. deviceId/simSlot of the send force the choice; otherwise round robin over the SIMs of
 * the enabled, connected phones. The order is stored before it is sent to the phone, and the
 * phone's text options are applied then: the message shows body, encoding and segments as sent.
 */
@inject()
export class Dispatcher {
  constructor(
    private clock: Clock,
    private hub: DeviceHub,
    private settings: SettingsStore,
    private cursor: RoutingCursor
  ) {}

  /** One pass; answers when the next one is due (null: when woken). */
  async pass(): Promise<Date | null> {
    const now = this.clock.now().toISOString()
    const connected = this.hub.connectedDevices()
    const devices = connected.length ? await Device.query().whereIn('id', connected).where('enabled', true).preload('sims') : []
    const carriers: Carrier[] = devices.flatMap((device) => device.sims.map((sim) => ({ device, slot: sim.slot })))

    const due = await db
      .from('messages')
      .where('status', 'queued')
      .where('direction', 'out')
      .whereNull('ordered_at')
      .where((query) => query.whereNull('scheduled_at').orWhere('scheduled_at', '<=', now))
      .where((query) => query.whereNull('held_until').orWhere('held_until', '<=', now))
      .orderBy('created_at', 'asc')
      .orderBy('id', 'asc')
      .limit(PASS_SIZE)
      .select('id', 'phone', 'body', 'forced_device_id', 'forced_sim_slot')

    const general = await this.settings.get('general')
    let handed = 0
    for (const message of due) {
      const carrier = await this.#carrierFor(message, carriers)
      if (!carrier) continue
      const text = applyTextOptions(message.body, effectiveTextOptions(general, carrier.device.textOptions))
      const { encoding, segments } = countSegments(text)
      const ordered = await db
        .from('messages')
        .where('id', message.id)
        .where('status', 'queued')
        .whereNull('ordered_at')
        .update({ ordered_at: now, device_id: String(carrier.device.id), sim_slot: carrier.slot, body: text, encoding, segments, updated_at: now })
      if (!Number(Array.isArray(ordered) ? ordered[0] : ordered)) continue
      this.hub.send(carrier.device.id, { type: 'send', messageId: String(message.id), to: message.phone, text, simSlot: carrier.slot })
      handed++
    }
    if (due.length === PASS_SIZE && handed > 0) return this.clock.now()
    return this.#nextDue(now)
  }

  /** Sends again the orders a phone has not accepted yet (after it reconnects). */
  async resendOrders(deviceId: number) {
    const orders = await db
      .from('messages')
      .where('device_id', String(deviceId))
      .where('status', 'queued')
      .whereNotNull('ordered_at')
      .orderBy('id', 'asc')
      .select('id', 'phone', 'body', 'sim_slot')
    for (const order of orders) {
      this.hub.send(deviceId, { type: 'send', messageId: String(order.id), to: order.phone, text: order.body, simSlot: order.sim_slot ?? 0 })
    }
  }

  async #carrierFor(message: { id: number; forced_device_id: number | null; forced_sim_slot: number | null }, carriers: Carrier[]): Promise<Carrier | null> {
    if (message.forced_device_id !== null) {
      const paired = message.forced_device_id > 0 && (await db.from('devices').where('id', message.forced_device_id).first())
      if (!paired) {
        await this.#fail(message.id, 'DEVICE_NOT_PAIRED')
        return null
      }
      const forced = carriers.filter(
        (carrier) => carrier.device.id === message.forced_device_id && (message.forced_sim_slot === null || carrier.slot === message.forced_sim_slot)
      )
      // The forced phone is away: the message waits for it.
      return forced[0] ?? null
    }
    const pool = message.forced_sim_slot === null ? carriers : carriers.filter((carrier) => carrier.slot === message.forced_sim_slot)
    if (!pool.length) return null
    const carrier = pool[this.cursor.next % pool.length]
    this.cursor.next = (this.cursor.next + 1) % 1_000_000
    return carrier
  }

  async #fail(messageId: number, errorCode: string) {
    const now = this.clock.now().toISOString()
    const updated = await db
      .from('messages')
      .where('id', messageId)
      .where('status', 'queued')
      .update({ status: 'failed', error_code: errorCode, failed_at: now, updated_at: now })
    if (Number(Array.isArray(updated) ? updated[0] : updated)) {
      await emitter.emit('message.failed', { id: String(messageId), status: 'failed', at: this.clock.now() })
    }
  }

  async #nextDue(now: string): Promise<Date | null> {
    const row = await db
      .from('messages')
      .where('status', 'queued')
      .where('direction', 'out')
      .whereNull('ordered_at')
      .where((query) => query.where('scheduled_at', '>', now).orWhere('held_until', '>', now))
      .select(db.raw('MIN(MAX(COALESCE(scheduled_at, \'\'), COALESCE(held_until, \'\'))) as next'))
      .first()
    return row?.next ? new Date(row.next) : null
  }
}
