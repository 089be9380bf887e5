import { inject } from '@adonisjs/core'
import { Secrets } from '#core/secrets/secrets'
import { DeviceStore } from '#modules/devices/stores/device_store'
import { credentialMatches, parseDeviceCredential } from '#modules/devices/services/device_credentials'

/**
 * The device credential our agent presents on its socket (`dev_<id>.<secret>`, made at pairing
 * and kept sealed by this module), checked for the agent's channel (docs/device-protocol.md).
 */
@inject()
export class AgentCredentials {
  constructor(
    private secrets: Secrets,
    private devices: DeviceStore
  ) {}

  /**
   * The paired device a presented credential opens; null for a malformed, unknown or revoked
   * one, or one the master key can no longer reveal. Rejects when it could not be checked.
   */
  async deviceOf(presented: string): Promise<{ id: number; name: string } | null> {
    const parsed = parseDeviceCredential(presented)
    if (!parsed) return null
    const device = await this.devices.credentialOf(parsed.deviceId)
    return device && credentialMatches(this.secrets, device.credentialSealed, parsed.secret) ? { id: device.id, name: device.name } : null
  }
}
