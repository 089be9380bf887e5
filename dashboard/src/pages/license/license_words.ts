import type { components } from '../../api/schema'

export type LicenseStatus = components['schemas']['LicenseStatus']

/** What the license state lets the gateway do, in an operator's words (docs/license.md, States). */
export function allowance(status: LicenseStatus): { title: string; detail: string; tone: 'success' | 'warning' | 'error' } {
  if (status.mode === 'community') {
    return {
      title: 'Community mode: everything works',
      detail: 'No license server is configured, so nothing is checked and nothing is ever withdrawn. A key entered here is kept until a license server is configured.',
      tone: 'success',
    }
  }
  if (status.state === 'withdrawn') {
    return {
      title: 'License withdrawn: reads only',
      detail: 'Pages, reads and exports keep working; sending, changes and backups are refused (LICENSE_BLOCKED) until the license server says the key is valid again. Entering a valid key below is how the gateway recovers.',
      tone: 'error',
    }
  }
  if (status.state === 'offline') {
    return {
      title: 'License server unreachable: everything works',
      detail: 'The license server does not answer; this is information only, nothing is suspended. The gateway asks again every 5 minutes.',
      tone: 'warning',
    }
  }
  return { title: 'License valid: everything works', detail: 'Sending, changes and backups are allowed. The license server is asked again every hour.', tone: 'success' }
}

export function keyWords(status: LicenseStatus): string {
  if (status.keyStatus === 'missing') return 'No key entered'
  if (status.keyStatus === 'must_be_set_again') return `The stored key (${status.keyPrefix ?? '?'}…) must be entered again: it was sealed with another master key (a database restored without its secret.key). No check is made until then.`
  return `Entered, starts with ${status.keyPrefix}… (the key itself is never shown)`
}

export const modeWords = (status: LicenseStatus) => (status.mode === 'community' ? 'Community (no license server)' : 'Licensed')

export const stateWords: Record<LicenseStatus['state'], string> = {
  valid: 'Valid',
  offline: 'Offline (license server unreachable)',
  withdrawn: 'Withdrawn',
}
