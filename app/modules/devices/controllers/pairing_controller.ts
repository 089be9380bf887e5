import { inject } from '@adonisjs/core'
import type { HttpContext } from '@adonisjs/core/http'
import { ApiError } from '#core/http/api_error'
import { Pairing } from '#modules/devices/services/pairing'
import { PairingAttempts } from '#modules/devices/services/pairing_attempts'
import { publicBaseUrl } from '#core/http/public_url'
import { pairValidator } from '#modules/devices/validators/device_validators'

@inject()
export default class PairingController {
  constructor(
    private pairing: Pairing,
    private attempts: PairingAttempts
  ) {}

  /** The QR code carries the address phones reach the gateway at: the public URL, or this request's. */
  async createCode({ request, response }: HttpContext) {
    const gatewayUrl = publicBaseUrl() ?? `${request.protocol()}://${request.host()}`
    response.status(201)
    // Validated by the route contract: a registered app, or none (our agent).
    return this.pairing.createCode(gatewayUrl, request.body().app ?? 'agent')
  }

  async pair({ request, response }: HttpContext) {
    const ip = request.ip()
    await this.attempts.take(ip)
    try {
      const input = await request.validateUsing(pairValidator, { data: request.body() })
      const { device, credential } = await this.pairing.pair(input)
      await this.attempts.giveBack(ip)
      await device.load('sims')
      response.status(201)
      return { device: device.toResource(), credential }
    } catch (error) {
      // Only a wrong code counts: a malformed body never tried one.
      if (!(error instanceof ApiError && error.code === 'INVALID_PAIRING_CODE')) await this.attempts.giveBack(ip)
      throw error
    }
  }
}
