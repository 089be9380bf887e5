import { inject } from '@adonisjs/core'
import emitter from '@adonisjs/core/services/emitter'
import { Clock } from '#core/time/clock'
import { ApiError } from '#core/http/api_error'
import type { Caller } from '#core/http/access'
import { ActivityLog } from '#core/activity/activity_log'
import { dateTimeOf } from '#core/database/utc_date_time'
import type { PageRequest } from '#core/pagination/keyset_page'
import type { PageOf } from '#core/contract/schemas'
import type { deviceSchema } from '#modules/devices/schemas'
import type Device from '#modules/devices/models/device'
import type { TextOptions } from '#modules/devices/models/device'
import { DeviceStore } from '#modules/devices/stores/device_store'
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
    private activity: ActivityLog,
    private devices: DeviceStore
  ) {}

  /** Newest first, in pages like every list. */
  async list(page: PageRequest): Promise<PageOf<typeof deviceSchema>> {
    const result = await this.devices.page(page)
    return { data: result.data.map((device) => device.toResource()), nextCursor: result.nextCursor }
  }

  async find(id: number): Promise<Device> {
    const device = await this.devices.find(id)
    if (!device) throw ApiError.notFound('Device')
    return device
  }

  async update(id: number, change: DeviceChange) {
    const device = await this.find(id)
    await transaction(async (trx) => {
      await this.devices.change(trx, device, {
        name: change.name,
        enabled: change.enabled,
        textOptions: change.textOptions === undefined ? undefined : { ...device.textOptions, ...change.textOptions },
        updatedAt: dateTimeOf(this.clock.now()),
      })
      for (const sim of change.sims ?? []) {
        if (!(await this.devices.setSimQuota(trx, device.id, sim.slot, sim.dailyQuota))) {
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
  async unpair(id: number, by: Caller | null): Promise<void> {
    const device = await this.find(id)
    const wasOnline = device.status === 'online'
    await this.devices.remove(device)
    await emitter.emit('devices:unpaired', { deviceId: device.id })
    // Its socket is closed: the phone is offline like any phone that loses its connection.
    if (wasOnline) await emitter.emit('device.offline', { id: String(device.id), deviceId: String(device.id), status: 'offline', at: this.clock.now() })
    await this.activity.actingFor(by).info('devices', 'device.unpaired', `Phone "${device.name}" unpaired`, { deviceId: String(device.id) })
  }
}

declare module '@adonisjs/core/types' {
  interface EventsList {
    'devices:unpaired': { deviceId: number }
    'devices:quota_changed': { deviceId: number }
  }
}
