import type { ApplicationService } from '@adonisjs/core/types'
import { RouteRegistry } from '#core/contract/route_registry'
import { registerVocabulary } from '#core/contract/module_vocabulary'
import { AgentCredentials, PhoneChannels } from '#modules/devices/public'
import { agentErrors } from '#modules/agent/errors'
import { agentRoutes } from '#modules/agent/routes'
import { AgentSocketChannel } from '#modules/agent/channel/agent_socket_channel'

/**
 * Our phone agent (`agent/`: Termux, a serial modem, the simulator) as a kind of phone: its
 * WebSocket channel (docs/device-protocol.md), registered beside the others
 * (docs/phone-channels.md). Pairing it is the devices module's `POST /api/v1/devices/pair`.
 */
export default class AgentProvider {
  constructor(protected app: ApplicationService) {}

  register() {
    registerVocabulary({ errors: agentErrors })
    this.app.container.singleton(AgentSocketChannel, async (resolver) => new AgentSocketChannel(await resolver.make(AgentCredentials), await resolver.make('logger')))
  }

  async start() {
    const { container } = this.app
    ;(await container.make(RouteRegistry)).add(agentRoutes())
    ;(await container.make(PhoneChannels)).register(await container.make(AgentSocketChannel))
  }
}
