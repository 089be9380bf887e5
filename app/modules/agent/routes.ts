import { access } from '#core/http/access'
import { defineRoutes } from '#core/contract/route_contract'
import { DEVICE_SOCKET_PATH } from '#modules/agent/channel/agent_protocol'

const SocketController = () => import('#modules/agent/controllers/socket_controller')

/** Our agent's socket address (docs/device-protocol.md); the upgrade itself never reaches the router. */
export function agentRoutes() {
  return defineRoutes([
    {
      method: 'GET',
      path: DEVICE_SOCKET_PATH,
      operationId: 'openDeviceSocket',
      summary: "A phone's WebSocket (upgrade only)",
      description:
        'Phones connect here with a WebSocket upgrade and `Authorization: Bearer <device credential>` (from POST ' +
        '/api/v1/devices/pair); every frame, field and close code is in docs/device-protocol.md. An unknown or revoked ' +
        'credential is refused before the upgrade with 401 INVALID_DEVICE_CREDENTIAL (pair again); a 500 means the ' +
        'credential could not be checked (try again). A plain HTTP request, without the upgrade, is answered 426.',
      tag: 'Devices',
      access: access.public(),
      answer: { status: 101, description: 'Switching to the WebSocket protocol (upgrade requests only)' },
      errors: ['UPGRADE_REQUIRED', 'INVALID_DEVICE_CREDENTIAL'],
      handler: [SocketController, 'withoutUpgrade'],
    },
  ])
}
