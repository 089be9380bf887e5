import { ApiError } from '#core/http/api_error'

/**
 * The agent's socket address asked without an upgrade: the upgrade itself never reaches the
 * router (the agent's socket channel takes it on the HTTP server's `upgrade` event).
 */
export default class SocketController {
  async withoutUpgrade() {
    throw new ApiError(
      'UPGRADE_REQUIRED',
      'Connect with a WebSocket upgrade and the device credential; see docs/device-protocol.md',
      { upgrade: 'websocket' },
      { Upgrade: 'websocket' }
    )
  }
}
