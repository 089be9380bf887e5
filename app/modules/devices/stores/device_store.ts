import db from '@adonisjs/lucid/services/db'
import type { QueryClientContract, TransactionClientContract } from '@adonisjs/lucid/types/database'
import type { DateTime } from 'luxon'
import { readConnection } from '#core/database/read_connection'
import { affectedRows } from '#core/database/affected_rows'
import { toIso } from '#core/database/utc_date_time'
import { keysetPage, type Page, type PageRequest } from '#core/pagination/keyset_page'
import Device, { type TextOptions } from '#modules/devices/models/device'
import { parseRecentOrders, type SimDayCount } from '#modules/devices/services/sim_usage'
import { chunksOf, marks } from '#core/database/statement_chunks'

/** A SIM of a phone as a dispatch pass reads it, with its use of the day asked. */
export interface SimUse {
  deviceId: number
  /** The phone's own text options (unset ones fall back to Settings > General). */
  textOptions: TextOptions
  slot: number
  dailyQuota: number | null
  /** Handed out on the day asked (0 when its count is of another day). */
  sentToday: number
  /** When it was handed SMS lately (epoch ms, oldest first). */
  recentOrders: number[]
}

/** What a pass handed one SIM: counted on the day, its order times replaced by `recentOrders`. */
export interface OrdersCounted {
  deviceId: number
  slot: number
  count: number
  recentOrders: number[]
}

/** Battery and signal as last reported; the battery's charge is a boolean here, 0/1 in the table. */
export interface StoredStatus {
  batteryLevel: number | null
  charging: boolean | null
  signal: number | null
}

/** A SIM a paired phone reports: slot 0 or 1. */
export interface SimFields {
  slot: number
  label?: string
  operator?: string | null
  number?: string
}

/**
 * The `devices` and `device_sims` tables (docs/modules.md, Data access). The query builder, and
 * the Device model for what the API shows of a phone (list, read, pair, change, unpair). Four
 * statements are SQL text, each on a hot path: the SIMs a dispatch pass reads (on the read
 * connection) and the forced phone's slots, the SIM counts of a pass (one `UPDATE … FROM
 * (VALUES …)` per 100 SIMs) and the counts given back (`UPDATE … RETURNING`); the builder
 * writes none of them in one statement.
 */
export class DeviceStore {
  /** A page of phones with their SIMs, newest first. */
  async page(request: PageRequest): Promise<Page<Device>> {
    return keysetPage(Device.query().preload('sims'), request, 'created_at', (row) => toIso(row.createdAt))
  }

  /** A phone with its SIMs; null when no phone has this id. */
  async find(id: number): Promise<Device | null> {
    return Device.query().where('id', id).preload('sims').first()
  }

  /** A phone's SIMs, read once it has some (a phone just paired). */
  async withSims(device: Device): Promise<Device> {
    await device.load('sims')
    return device
  }

  /** What a channel checks a presented credential against; null when no phone has this id. */
  async credentialOf(id: number): Promise<{ id: number; name: string; credentialSealed: string } | null> {
    const device = await Device.find(id)
    return device && { id: device.id, name: device.name, credentialSealed: device.credentialSealed }
  }

  /** A phone just paired, with no credential yet (`sealCredential` follows in the transaction). */
  async addDevice(trx: TransactionClientContract, fields: { name: string; kind: string; model?: string; appVersion?: string; at: DateTime }): Promise<Device> {
    return Device.create(
      {
        name: fields.name,
        kind: fields.kind,
        model: fields.model ?? null,
        appVersion: fields.appVersion ?? null,
        credentialSealed: 'pending',
        enabled: true,
        status: 'offline',
        lastSeenAt: null,
        batteryLevel: null,
        batteryCharging: null,
        signal: null,
        textOptions: {},
        createdAt: fields.at,
        updatedAt: fields.at,
      },
      { client: trx }
    )
  }

  async sealCredential(trx: TransactionClientContract, device: Device, sealed: string): Promise<void> {
    device.credentialSealed = sealed
    await device.useTransaction(trx).save()
  }

  /** The SIMs a phone paired with, their counts at zero. */
  async addSims(trx: TransactionClientContract, deviceId: number, sims: SimFields[]): Promise<void> {
    if (!sims.length) return
    await trx.table('device_sims').multiInsert(
      sims.map((sim) => ({
        device_id: deviceId,
        slot: sim.slot,
        label: sim.label ?? null,
        operator: sim.operator ?? null,
        number: sim.number ?? null,
        daily_quota: null,
        sent_today: 0,
        sent_day: null,
      }))
    )
  }

  /**
   * The SIMs a phone reports after pairing: a slot not among them is removed, a reported one
   * added or its operator updated (its label, quota and counts stay).
   */
  async replaceSims(trx: TransactionClientContract, deviceId: number, sims: Array<{ slot: number; operator: string | null }>): Promise<void> {
    await trx.from('device_sims').where('device_id', deviceId).whereNotIn('slot', sims.map((sim) => sim.slot)).delete()
    for (const sim of sims) {
      await trx
        .insertQuery()
        .table('device_sims')
        .insert({ device_id: deviceId, slot: sim.slot, operator: sim.operator, sent_today: 0 })
        .knexQuery.onConflict(['device_id', 'slot'])
        .merge(['operator'])
    }
  }

  /** Name, enabled and text options, as the API changes them; `updatedAt` always. */
  async change(
    trx: TransactionClientContract,
    device: Device,
    fields: { name?: string; enabled?: boolean; textOptions?: TextOptions; updatedAt: DateTime }
  ): Promise<void> {
    if (fields.name !== undefined) device.name = fields.name
    if (fields.enabled !== undefined) device.enabled = fields.enabled
    if (fields.textOptions !== undefined) device.textOptions = fields.textOptions
    device.updatedAt = fields.updatedAt
    await device.useTransaction(trx).save()
  }

  /** A SIM's daily quota (null: none); false when the phone has no SIM in that slot. */
  async setSimQuota(trx: TransactionClientContract, deviceId: number, slot: number, dailyQuota: number | null): Promise<boolean> {
    const updated = await trx.from('device_sims').where('device_id', deviceId).where('slot', slot).update({ daily_quota: dailyQuota })
    return affectedRows(updated) === 1
  }

  /** Unpairs: the phone's row goes, its SIMs with it (the schema's cascade). */
  async remove(device: Device): Promise<void> {
    await device.delete()
  }

  async exists(id: number): Promise<boolean> {
    return Boolean(await db.from('devices').where('id', id).first())
  }

  /** The phones paired as one of these kinds, on the caller's client when it holds a transaction. */
  async idsOfKinds(kinds: string[], client?: QueryClientContract): Promise<number[]> {
    const rows = await (client ?? db).from('devices').whereIn('kind', kinds).select('id')
    return rows.map((row) => Number(row.id))
  }

  /** Whether a paired phone's SIM has this number. */
  async isSimNumber(phone: string): Promise<boolean> {
    return Boolean(await db.from('device_sims').where('number', phone).first())
  }

  /** The enabled, online phones. */
  async countAvailable(): Promise<number> {
    const [row] = await Device.query().where('enabled', true).where('status', 'online').count('* as phones')
    return Number(row.$extras.phones)
  }

  /** The SIM slots of these phones, by phone; a phone with no row (or no SIM) is left out. */
  async slotsOf(ids: number[]): Promise<Map<number, Set<number>>> {
    const rows: Array<{ device_id: number; slot: number }> = await db.from('device_sims').whereIn('device_id', ids).select('device_id', 'slot')
    const slots = new Map<number, Set<number>>()
    for (const row of rows) slots.set(row.device_id, (slots.get(row.device_id) ?? new Set()).add(row.slot))
    return slots
  }

  /** The SIM slots of a paired phone; null when no phone has this id. */
  async simSlotsOf(deviceId: number): Promise<Set<number> | null> {
    const rows =
      deviceId > 0
        ? await db.rawQuery('SELECT device_sims.slot FROM devices LEFT JOIN device_sims ON device_sims.device_id = devices.id WHERE devices.id = ?', [deviceId])
        : []
    return rows.length ? new Set(rows.filter((row: any) => row.slot !== null).map((row: any) => row.slot)) : null
  }

  async onlineIds(): Promise<number[]> {
    const rows = await db.from('devices').where('status', 'online').select('id')
    return rows.map((row: { id: number }) => row.id)
  }

  async offlineIds(): Promise<number[]> {
    const rows = await db.from('devices').where('status', 'offline').select('id')
    return rows.map((row: { id: number }) => row.id)
  }

  /** Online → offline; false when it was not online (nothing to announce). */
  async markOffline(id: number): Promise<boolean> {
    const updated = await db.from('devices').where('id', id).where('status', 'online').update({ status: 'offline' })
    return affectedRows(updated) > 0
  }

  /** The phone was heard at `at`; answers whether it came online (it was offline). */
  async recordSeen(id: number, at: string): Promise<boolean> {
    await db.from('devices').where('id', id).update({ last_seen_at: at })
    const cameOnline = await db.from('devices').where('id', id).where('status', 'offline').update({ status: 'online' })
    return affectedRows(cameOnline) > 0
  }

  async recordAppVersion(id: number, version: string): Promise<void> {
    await db.from('devices').where('id', id).update({ app_version: version })
  }

  /** Battery and signal as stored; null when no phone has this id. */
  async statusOf(id: number): Promise<StoredStatus | null> {
    const row = await db.from('devices').where('id', id).select('battery_level', 'battery_charging', 'signal').first()
    if (!row) return null
    return { batteryLevel: row.battery_level, charging: row.battery_charging === null ? null : Boolean(row.battery_charging), signal: row.signal }
  }

  /** The values reported; one left out keeps what is stored (nothing reported: no statement). */
  async recordStatus(id: number, status: Partial<StoredStatus>): Promise<void> {
    const update: Record<string, unknown> = {}
    if (status.batteryLevel !== undefined) update.battery_level = status.batteryLevel
    if (status.charging !== undefined && status.charging !== null) update.battery_charging = status.charging ? 1 : 0
    if (status.signal !== undefined) update.signal = status.signal
    if (Object.keys(update).length) await db.from('devices').where('id', id).update(update)
  }

  /**
   * The SIMs of these phones that are enabled, with their use of `day`: on the read connection,
   * like the due messages, since a dispatch pass's own writes come after it.
   */
  async carriersOf(deviceIds: number[], day: string): Promise<SimUse[]> {
    if (!deviceIds.length) return []
    const rows = await readConnection().rawQuery(
      `SELECT devices.id, devices.text_options, device_sims.slot, device_sims.daily_quota, device_sims.sent_today, device_sims.sent_day,
         device_sims.recent_orders
       FROM devices JOIN device_sims ON device_sims.device_id = devices.id
       WHERE devices.enabled = 1 AND devices.id IN (${marks(deviceIds)})
       ORDER BY devices.id ASC, device_sims.slot ASC`,
      deviceIds
    )
    const textOptions = new Map<number, TextOptions>()
    return rows.map((row: any) => {
      if (!textOptions.has(row.id)) textOptions.set(row.id, (row.text_options && JSON.parse(row.text_options)) || {})
      return {
        deviceId: row.id,
        textOptions: textOptions.get(row.id)!,
        slot: row.slot,
        dailyQuota: row.daily_quota,
        sentToday: row.sent_day === day ? row.sent_today : 0,
        recentOrders: parseRecentOrders(row.recent_orders),
      }
    })
  }

  /** One statement per 100 SIMs: each SIM's count of `day` and its order times. */
  async countOrders(sims: OrdersCounted[], day: string): Promise<void> {
    for (const chunk of chunksOf(sims, 100)) {
      await db.rawQuery(
        `WITH used(device_id, slot, count, recent_orders) AS (VALUES ${chunk.map(() => '(?, ?, ?, ?)').join(', ')})
         UPDATE device_sims SET sent_today = CASE WHEN sent_day = ? THEN sent_today + used.count ELSE used.count END, sent_day = ?,
           recent_orders = used.recent_orders
         FROM used
         WHERE device_sims.device_id = used.device_id AND device_sims.slot = used.slot`,
        [...chunk.flatMap((sim) => [sim.deviceId, sim.slot, sim.count, JSON.stringify(sim.recentOrders)]), day, day]
      )
    }
  }

  /**
   * Gives counts back, each on the day it was counted (a count of an earlier day is gone
   * already); answers the phones of which a SIM with a daily quota got room back, each once.
   */
  async giveBack(counts: SimDayCount[]): Promise<number[]> {
    const quotaFreed = new Set<number>()
    for (const entry of counts) {
      const rows = await db.rawQuery(
        `UPDATE device_sims SET sent_today = MAX(sent_today - ?, 0) WHERE device_id = ? AND slot = ? AND sent_day = ? RETURNING daily_quota`,
        [entry.count, entry.deviceId, entry.slot, entry.day]
      )
      if (rows.some((row: { daily_quota: number | null }) => row.daily_quota !== null)) quotaFreed.add(entry.deviceId)
    }
    return [...quotaFreed]
  }
}
