import { inject } from '@adonisjs/core'
import type { HttpContext } from '@adonisjs/core/http'
import { idParam } from '#core/http/route_params'
import { DeviceRegistry } from '#modules/devices/services/device_registry'
import { routeInputs } from '#core/contract/route_contract'
import type { DeviceRoutes } from '#modules/devices/routes'

const input = routeInputs<DeviceRoutes>()

@inject()
export default class DevicesController {
  constructor(private devices: DeviceRegistry) {}

  async index(ctx: HttpContext) {
    return this.devices.list(input(ctx, 'listDevices').query)
  }

  async show({ params }: HttpContext) {
    return (await this.devices.find(idParam(params.id, 'Device'))).toResource()
  }

  async update(ctx: HttpContext) {
    return this.devices.update(idParam(ctx.params.id, 'Device'), input(ctx, 'updateDevice').body)
  }

  async destroy({ params, response, caller }: HttpContext) {
    await this.devices.unpair(idParam(params.id, 'Device'), caller!)
    return response.noContent()
  }
}
