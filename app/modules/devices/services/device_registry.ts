import { inject } from '@adonisjs/core'
import emitter from '@adonisjs/core/services/emitter'
import { Clock } from '#core/time/clock'
import { ApiError } from '#core/http/api_error'
import { ActivityLog } from '#core/activity/activity_log'
import { dateTimeOf, toIso } from '#core/database/utc_date_time'
import { keysetPage, type PageRequest } from '#core/pagination/keyset_page'
import Device, { type TextOptions } from '#modules/devices/models/device'
import { affectedRows } from '#core/database/affected_rows'
import { transaction } from '#core/database/transaction'

export interface DeviceChange {
  name?: string
  enabled?: boolean
  sims?: Array<{ slot: number; dailyQuota: number | null }>
  textOptions?: TextOptions
}

/** Paired phones: listing, changing and unpairing them. */
@inject()
export class DeviceRegistry {
  constructor(
    private clock: Clock,
    private activity: ActivityLog
  ) {}

  /** Newest first, in pages like every list. */
  async list(page: PageRequest) {
    const result = await keysetPage(Device.query().preload('sims'), page, 'created_at', (row) => toIso(row.createdAt))
    return { data: result.data.map((device) => device.toResource()), nextCursor: result.nextCursor }
  }

  async find(id: number): Promise<Device> {
    const device = await Device.query().where('id', id).preload('sims').first()
    if (!device) throw ApiError.notFound('Device')
    return device
  }

  async update(id: number, change: DeviceChange) {
    const device = await this.find(id)
    await transaction(async (trx) => {
      if (change.name !== undefined) device.name = change.name
      if (change.enabled !== undefined) device.enabled = change.enabled
      if (change.textOptions !== undefined) device.textOptions = { ...device.textOptions, ...change.textOptions }
      device.updatedAt = dateTimeOf(this.clock.now())
      await device.useTransaction(trx).save()
      for (const sim of change.sims ?? []) {
        const updated = await trx.from('device_sims').where('device_id', device.id).where('slot', sim.slot).update({ daily_quota: sim.dailyQuota })
        if (affectedRows(updated) !== 1) {
          throw ApiError.validation('sims', 'slot', `This phone has no SIM in slot ${sim.slot}`)
        }
      }
    })
    if (change.sims?.length) await emitter.emit('devices:quota_changed', { deviceId: device.id })
    // Enabled again: what waited for a phone may leave now.
    if (change.enabled === true) await emitter.emit('devices:available', { deviceId: device.id })
    return (await this.find(id)).toResource()
  }

  /** Unpairs: the credential stops working at once and an open connection is closed. */
  async unpair(id: number): Promise<void> {
    const device = await this.find(id)
    const wasOnline = device.status === 'online'
    await device.delete()
    await emitter.emit('devices:unpaired', { deviceId: device.id })
    // Its socket is closed: the phone is offline like any phone that loses its connection.
    if (wasOnline) await emitter.emit('device.offline', { id: String(device.id), deviceId: String(device.id), status: 'offline', at: this.clock.now() })
    await this.activity.info('devices', 'device.unpaired', `Phone "${device.name}" unpaired`, { deviceId: String(device.id) })
  }
}

declare module '@adonisjs/core/types' {
  interface EventsList {
    'devices:unpaired': { deviceId: number }
    'devices:quota_changed': { deviceId: number }
  }
}
