import { inject } from '@adonisjs/core'
import type { HttpContext } from '@adonisjs/core/http'
import { idParam } from '#core/http/route_params'
import { DeviceRegistry } from '#modules/devices/services/device_registry'
import { updateDeviceValidator } from '#modules/devices/validators/device_validators'
import { pageQueryValidator } from '#core/pagination/keyset_page'

@inject()
export default class DevicesController {
  constructor(private devices: DeviceRegistry) {}

  async index({ request }: HttpContext) {
    return this.devices.list(await request.validateUsing(pageQueryValidator, { data: request.qs() }))
  }

  async show({ params }: HttpContext) {
    return (await this.devices.find(idParam(params.id, 'Device'))).toResource()
  }

  async update({ params, request }: HttpContext) {
    return this.devices.update(idParam(params.id, 'Device'), await request.validateUsing(updateDeviceValidator, { data: request.body() }))
  }

  async destroy({ params, response }: HttpContext) {
    await this.devices.unpair(idParam(params.id, 'Device'))
    return response.noContent()
  }
}
