import env from '#start/env'
import { gatewayVersion } from '#core/system/api_docs_controller'
import type { LicenseConfig } from '#modules/license/services/license_service'
import { isWellFormedLicenseKey } from '#modules/license/validators/license_validators'

/** What the environment says about the license: GATEWAY_LICENSE_SERVER and GATEWAY_LICENSE_KEY. */
export interface LicenseEnvironment {
  config: LicenseConfig
  /** A key given at start; it replaces the stored one. */
  key: string | null
}

export function licenseEnvironment(): LicenseEnvironment {
  return {
    config: { server: licenseServerOf(env.get('GATEWAY_LICENSE_SERVER')), gatewayVersion },
    key: licenseKeyOf(env.get('GATEWAY_LICENSE_KEY')),
  }
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
