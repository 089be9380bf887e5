import type { ApplicationService } from '@adonisjs/core/types'
import { RouteRegistry } from '#core/contract/route_registry'
import { registerVocabulary } from '#core/contract/module_vocabulary'
import { Clock } from '#core/time/clock'
import { PhoneChannels, pairingApps } from '#modules/devices/public'
import { smsgateErrors } from '#modules/smsgate/errors'
import { smsgateRoutes } from '#modules/smsgate/routes'
import { SmsgateChannel } from '#modules/smsgate/channel/smsgate_channel'
import { MOBILE_API_PATH } from '#modules/smsgate/channel/app_protocol'

/**
 * The SMSGate Android app as a kind of phone (docs/smsgate.md): its pairing codes, its
 * `/api/mobile/v1` protocol, and its channel, registered beside our agent's
 * (docs/phone-channels.md, a channel of its own).
 */
export default class SmsgateProvider {
  constructor(protected app: ApplicationService) {}

  register() {
    registerVocabulary({ errors: smsgateErrors })
    // Before any route is built: the devices module's pairing-code route offers this app.
    pairingApps.add({ name: 'smsgate', digitsOnly: true, apiUrl: (gatewayUrl) => `${gatewayUrl}${MOBILE_API_PATH}` })
    this.app.container.singleton(SmsgateChannel, async (resolver) => new SmsgateChannel(await resolver.make(Clock), await resolver.make('logger')))
  }

  async start() {
    const { container } = this.app
    ;(await container.make(RouteRegistry)).add(smsgateRoutes(await container.make(RouteRegistry)))
    ;(await container.make(PhoneChannels)).register(await container.make(SmsgateChannel))
  }
}
