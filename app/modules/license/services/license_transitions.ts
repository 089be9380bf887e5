import type { ActivityLevel } from '#core/activity/activity_entry'
import type { LicenseVerdict } from '#modules/license/services/license_check_policy'
import type { LicenseState } from '#modules/license/services/license_state'

/** What a change of state tells the outside: a public event and an Activity log line. */
export interface LicenseTransition {
  event: 'license.offline' | 'license.reconnected' | null
  level: ActivityLevel
  message: string
}

const WRITES_REFUSED = 'Reads and exports keep working; writes are refused until the license is valid again.'

/**
 * The notices for going from `from` to `to` after `verdict`, or null when nothing changed.
 * `license.offline` is only for a valid license losing its server; the server answering again
 * after that is `license.reconnected`, whatever it answers.
 */
export function transitionOf(from: LicenseState, to: LicenseState, verdict: LicenseVerdict): LicenseTransition | null {
  if (from === 'offline' && verdict.answered) {
    return to === 'withdrawn'
      ? { event: 'license.reconnected', level: 'error', message: `The license server answers again: the license is withdrawn. ${WRITES_REFUSED}` }
      : { event: 'license.reconnected', level: 'info', message: 'The license server answers again: the license is valid.' }
  }
  if (from === to) return null
  if (to === 'offline') {
    const reason = verdict.answered ? '' : ` (${verdict.reason})`
    return {
      event: 'license.offline',
      level: 'warning',
      message: `The license server does not answer${reason}. Nothing is suspended; the gateway keeps asking.`,
    }
  }
  if (to === 'withdrawn') return { event: null, level: 'error', message: `The license is withdrawn. ${WRITES_REFUSED}` }
  return { event: null, level: 'info', message: 'The license is valid again: writes are accepted.' }
}
