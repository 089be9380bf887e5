import { inject } from '@adonisjs/core'
import type { HttpContext } from '@adonisjs/core/http'
import { routeInputs } from '#core/contract/route_contract'
import { ApiError } from '#core/http/api_error'
import { SmsgateChannel } from '#modules/smsgate/channel/smsgate_channel'
import { SmsgateDevices } from '#modules/smsgate/services/smsgate_devices'
import { publicBaseUrl } from '#core/http/public_url'
import { Clock } from '#core/time/clock'
import { checkSignature, pingStatus, receivedSmsRef } from '#modules/smsgate/channel/app_protocol'
import { receivedSmsValidator, webhookEnvelopeValidator } from '#modules/smsgate/validators/mobile_validators'
import type { SmsgateRoutes } from '#modules/smsgate/routes'
import type { DeviceAnswer } from '#modules/smsgate/schemas'

const input = routeInputs<SmsgateRoutes>()

/** The SMSGate app's calls (docs/smsgate.md): thin, the rules are in SmsgateDevices and the channel. */
@inject()
export default class MobileController {
  constructor(
    private devices: SmsgateDevices,
    private channel: SmsgateChannel,
    private clock: Clock
  ) {}

  async register(ctx: HttpContext) {
    const { request, response } = ctx
    const match = /^\s*Code\s+(\S+)\s*$/i.exec(request.header('authorization') ?? '')
    // The app's "Sign up" (no credentials, or a private token) and "Sign in" make no phone here.
    if (!match) throw new ApiError('SMSGATE_UNAUTHORIZED', 'Pair with a code: Authorization: Code <code>')
    const body = input(ctx, 'smsgateRegisterDevice').body
    const appVersion = /me\.capcom\.smsgateway\/(\S+)/.exec(request.header('user-agent') ?? '')?.[1]
    const answer = await this.devices.register(match[1], { ...body, appVersion: appVersion?.slice(0, 40) }, request.ip(), ctx.logger)
    response.status(201)
    return answer
  }

  async show(ctx: HttpContext): Promise<DeviceAnswer> {
    const externalIp = ctx.request.ip()
    let deviceId: number | null = null
    try {
      deviceId = await this.devices.authenticate(ctx.request.header('authorization'))
    } catch (error) {
      if (!(error instanceof ApiError)) throw error
    }
    return deviceId === null ? { externalIp } : { externalIp, device: await this.devices.describe(deviceId) }
  }

  async update(ctx: HttpContext) {
    const deviceId = await this.devices.authenticate(ctx.request.header('authorization'))
    await this.devices.update(deviceId, input(ctx, 'smsgateUpdateDevice').body, ctx.logger)
    ctx.response.status(204)
  }

  async messages(ctx: HttpContext) {
    const deviceId = await this.devices.authenticate(ctx.request.header('authorization'))
    return this.channel.fetch(deviceId, input(ctx, 'smsgateListMessages').query.order ?? 'lifo')
  }

  async report(ctx: HttpContext) {
    const deviceId = await this.devices.authenticate(ctx.request.header('authorization'))
    await this.channel.report(deviceId, input(ctx, 'smsgateReportMessages').body)
    ctx.response.status(204)
  }

  async webhooks(ctx: HttpContext) {
    const deviceId = await this.devices.authenticate(ctx.request.header('authorization'))
    const { request } = ctx
    return this.devices.webhooksFor(deviceId, publicBaseUrl() ?? `${request.protocol()}://${request.host()}`)
  }

  /**
   * A webhook the app posts to the phone's own URL (docs/smsgate.md, Received SMS): the URL's
   * secret, then the signature over the raw body, are checked before anything is read or stored.
   */
  async hook(ctx: HttpContext) {
    const { request, params, logger } = ctx
    const device = await this.devices.webhookKey(String(params.device), String(params.secret))
    if (!device) throw new ApiError('NOT_FOUND', 'Not found')
    const headers = { timestamp: request.header('x-timestamp'), signature: request.header('x-signature') }
    switch (checkSignature(device.key, ctx.rawBody ?? Buffer.alloc(0), headers, this.clock.nowMs())) {
      case 'unsigned':
        throw new ApiError('SMSGATE_WEBHOOK_UNSIGNED', 'Sign the webhook: X-Signature and X-Timestamp')
      case 'stale':
        throw new ApiError('SMSGATE_WEBHOOK_STALE', "X-Timestamp is more than 5 minutes from the gateway's clock")
      case 'wrong':
        throw new ApiError('SMSGATE_WEBHOOK_SIGNATURE', "X-Signature does not match the device's signing key")
    }
    const envelope = await webhookEnvelopeValidator.validate(request.body())
    const { deviceId } = device
    switch (envelope.event) {
      case 'sms:received': {
        const sms = await receivedSmsValidator.validate(envelope.payload)
        const instant = sms.receivedAt ? Date.parse(sms.receivedAt) : Number.NaN
        await this.channel.received(deviceId, {
          ref: receivedSmsRef(sms),
          from: sms.sender ?? sms.phoneNumber ?? 'unknown',
          body: sms.message,
          receivedAt: Number.isNaN(instant) ? null : new Date(instant),
          simSlot: sms.simNumber === undefined ? undefined : sms.simNumber - 1,
        })
        break
      }
      case 'system:ping':
        await this.channel.pinged(deviceId, pingStatus(envelope.payload))
        break
      case 'sms:data-received':
      case 'mms:received':
        // Not kept: said in the log, without what it carries.
        logger.info({ deviceId, event: envelope.event }, 'smsgate: the phone received a data SMS or an MMS, which the gateway does not keep')
        break
      default:
        // An event the gateway did not register: taken, so the app does not post it again.
        logger.debug({ deviceId, event: envelope.event.slice(0, 40) }, 'smsgate: webhook event not taken')
    }
    ctx.response.status(204)
  }

  async loginCode(ctx: HttpContext) {
    const { request, logger } = ctx
    return this.devices.codeForAnotherPhone(request.header('authorization'), publicBaseUrl() ?? `${request.protocol()}://${request.host()}`, request.ip(), logger)
  }

  async changePassword(ctx: HttpContext) {
    const deviceId = await this.devices.authenticate(ctx.request.header('authorization'))
    await this.devices.changePassword(deviceId, input(ctx, 'smsgateChangePassword').body)
    ctx.response.status(204)
  }

  async settings(ctx: HttpContext) {
    const deviceId = await this.devices.authenticate(ctx.request.header('authorization'))
    return this.devices.settingsFor(deviceId)
  }

  async events(ctx: HttpContext) {
    const deviceId = await this.devices.authenticate(ctx.request.header('authorization'))
    const stream = this.channel.open(deviceId)
    // The phone went away (or the gateway ended the answer): the stream closes with it.
    ctx.response.response.once('close', () => stream.destroy())
    ctx.response.header('Content-Type', 'text/event-stream')
    ctx.response.header('Cache-Control', 'no-cache')
    ctx.response.header('X-Accel-Buffering', 'no')
    ctx.response.stream(stream)
  }
}
