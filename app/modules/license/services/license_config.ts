import env from '#start/env'
import { gatewayVersion } from '#core/system/api_docs_controller'
import { isWellFormedLicenseKey } from '#modules/license/validators/license_validators'

export const DEFAULT_CHECK_TIMEOUT_MS = 10_000

/**
 * The license's configuration, a value the provider binds (from the environment) so that the
 * services taking it are built by the container; a test binds or passes its own.
 */
export class LicenseConfig {
  /** The license server's base URL (http or https); null is community mode. */
  readonly server: string | null
  readonly gatewayVersion: string
  /** A key given at start; it replaces the stored one. */
  readonly key: string | null
  /** How long one check waits for the license server. */
  readonly checkTimeoutMs: number

  constructor(config: { server: string | null; gatewayVersion: string; key?: string | null; checkTimeoutMs?: number }) {
    this.server = config.server
    this.gatewayVersion = config.gatewayVersion
    this.key = config.key ?? null
    this.checkTimeoutMs = config.checkTimeoutMs ?? DEFAULT_CHECK_TIMEOUT_MS
  }
}

/** What the environment says about the license: GATEWAY_LICENSE_SERVER and GATEWAY_LICENSE_KEY. */
export function licenseEnvironment(): LicenseConfig {
  return new LicenseConfig({
    server: licenseServerOf(env.get('GATEWAY_LICENSE_SERVER')),
    gatewayVersion,
    key: licenseKeyOf(env.get('GATEWAY_LICENSE_KEY')),
  })
}

/** Refused at start like PUT refuses it; the message never quotes the value. */
export function licenseKeyOf(value: string | undefined): string | null {
  const key = value?.trim()
  if (!key) return null
  if (!isWellFormedLicenseKey(key)) {
    throw new Error('GATEWAY_LICENSE_KEY must be 8 to 256 printable characters without spaces')
  }
  return key
}

/**
 * start/env.ts already checks the value is a URL, but its URL format also accepts ftp: refuse
 * anything the check cannot speak, at start rather than at the first check an hour later.
 */
export function licenseServerOf(value: string | undefined): string | null {
  const server = value?.trim()
  if (!server) return null
  const protocol = new URL(server).protocol
  if (protocol !== 'http:' && protocol !== 'https:') {
    throw new Error('GATEWAY_LICENSE_SERVER must be an http:// or https:// URL')
  }
  return server
}
