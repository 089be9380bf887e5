import got, { RequestError } from 'got'
import { inject } from '@adonisjs/core'
import type { LicenseVerdict } from '#modules/license/services/license_check_policy'
import { LicenseConfig } from '#modules/license/services/license_config'

/** The exchange with the license server (docs/license.md, Protocol). */
export const CHECK_PATH = 'v1/licenses/check'

/**
 * Asks the license server about one key. Never throws: whatever goes wrong on the way is a
 * verdict of "no answer" with a short reason for the operator. The reason never quotes the
 * key, and the got error itself is not passed on because it carries the request body.
 */
@inject()
export class LicenseServerClient {
  constructor(private config: LicenseConfig) {}

  async check(server: string, key: string, gatewayVersion: string): Promise<LicenseVerdict> {
    let response
    try {
      response = await got.post(checkUrlOf(server), {
        json: { key, gatewayVersion },
        headers: { 'user-agent': `sms-gateway/${this.config.gatewayVersion}`, accept: 'application/json' },
        timeout: { request: this.config.checkTimeoutMs },
        // The check job retries on its own schedule; a retry inside got would hide an outage
        // and multiply the calls to a struggling server.
        retry: { limit: 0 },
        // A redirect could send the key elsewhere; it counts as no answer instead.
        followRedirect: false,
        throwHttpErrors: false,
        responseType: 'text',
      })
    } catch (error) {
      return { answered: false, reason: describeFailure(error) }
    }
    if (response.statusCode !== 200) {
      return { answered: false, reason: `the license server answered HTTP ${response.statusCode}` }
    }
    const status = statusIn(response.body)
    if (!status) return { answered: false, reason: 'the license server answered 200 without a known status' }
    return { answered: true, status }
  }
}

/** `https://host/base` and `https://host/base/` both lead to `https://host/base/v1/licenses/check`. */
export function checkUrlOf(server: string): URL {
  return new URL(CHECK_PATH, server.endsWith('/') ? server : `${server}/`)
}

function statusIn(body: string): 'valid' | 'withdrawn' | null {
  try {
    const parsed = JSON.parse(body)
    return parsed?.status === 'valid' || parsed?.status === 'withdrawn' ? parsed.status : null
  } catch {
    return null
  }
}

function describeFailure(error: unknown): string {
  if (error instanceof RequestError) {
    if (error.name === 'TimeoutError') return 'the license server did not answer in time'
    return `the license server could not be reached (${error.code || 'network error'})`
  }
  return 'the license server could not be reached'
}
