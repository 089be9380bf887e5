import { inject } from '@adonisjs/core'
import type { HttpContext } from '@adonisjs/core/http'
import { routeInputs } from '#core/contract/route_contract'
import { ApiError } from '#core/http/api_error'
import { SmsgateChannel } from '#modules/smsgate/channel/smsgate_channel'
import { SmsgateDevices } from '#modules/smsgate/services/smsgate_devices'
import type { SmsgateRoutes } from '#modules/smsgate/routes'

const input = routeInputs<SmsgateRoutes>()

/** The SMSGate app's calls (docs/smsgate.md): thin, the rules are in SmsgateDevices and the channel. */
@inject()
export default class MobileController {
  constructor(
    private devices: SmsgateDevices,
    private channel: SmsgateChannel
  ) {}

  async register(ctx: HttpContext) {
    const { request, response } = ctx
    const match = /^\s*Code\s+(\S+)\s*$/i.exec(request.header('authorization') ?? '')
    // The app's "Sign up" (no credentials, or a private token) and "Sign in" make no phone here.
    if (!match) throw new ApiError('SMSGATE_UNAUTHORIZED', 'Pair with a code: Authorization: Code <code>')
    const body = input(ctx, 'smsgateRegisterDevice').body
    const appVersion = /me\.capcom\.smsgateway\/(\S+)/.exec(request.header('user-agent') ?? '')?.[1]
    const answer = await this.devices.register(match[1], { ...body, appVersion: appVersion ? `SMSGate ${appVersion}`.slice(0, 40) : undefined }, request.ip(), ctx.logger)
    response.status(201)
    return answer
  }

  async show(ctx: HttpContext) {
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
    return this.channel.waitingMessages(deviceId, input(ctx, 'smsgateListMessages').query.order ?? 'lifo')
  }

  async report(ctx: HttpContext) {
    const deviceId = await this.devices.authenticate(ctx.request.header('authorization'))
    await this.channel.report(deviceId, input(ctx, 'smsgateReportMessages').body)
    ctx.response.status(204)
  }

  async webhooks(ctx: HttpContext) {
    await this.devices.authenticate(ctx.request.header('authorization'))
    return []
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
