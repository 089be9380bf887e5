import { inject } from '@adonisjs/core'
import type { HttpContext } from '@adonisjs/core/http'
import { ApiError } from '#core/http/api_error'
import { Pairing } from '#modules/devices/services/pairing'
import { PairingAttempts } from '#modules/devices/services/pairing_attempts'
import { DeviceStore } from '#modules/devices/stores/device_store'
import { publicBaseUrl } from '#core/http/public_url'
import { routeInputs } from '#core/contract/route_contract'
import type { DeviceRoutes } from '#modules/devices/routes'
import type { PairedDevice, PairingCodeAnswer } from '#modules/devices/schemas'

const input = routeInputs<DeviceRoutes>()

@inject()
export default class PairingController {
  constructor(
    private pairing: Pairing,
    private attempts: PairingAttempts,
    private devices: DeviceStore
  ) {}

  /** The QR code carries the address phones reach the gateway at: the public URL, or this request's. */
  async createCode(ctx: HttpContext): Promise<PairingCodeAnswer> {
    const { request, response } = ctx
    const gatewayUrl = publicBaseUrl() ?? `${request.protocol()}://${request.host()}`
    response.status(201)
    // A registered app, or none: our agent.
    return this.pairing.createCode(gatewayUrl, input(ctx, 'createPairingCode').body.app ?? 'agent', ctx.caller!)
  }

  async pair(ctx: HttpContext): Promise<PairedDevice> {
    const { request, response } = ctx
    const ip = request.ip()
    await this.attempts.take(ip)
    try {
      const { device, credential } = await this.pairing.pair(input(ctx, 'pairDevice').body)
      await this.attempts.giveBack(ip)
      response.status(201)
      return { device: (await this.devices.withSims(device)).toResource(), credential }
    } catch (error) {
      // Only a wrong code counts: a malformed body never tried one.
      if (!(error instanceof ApiError && error.code === 'INVALID_PAIRING_CODE')) await this.attempts.giveBack(ip)
      throw error
    }
  }
}
