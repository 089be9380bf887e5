import type { LicenseState } from '#modules/license/services/license_state'

/** What one check learned: the server's verdict, or that it gave none. */
export type LicenseVerdict = { answered: true; status: 'valid' | 'withdrawn' } | { answered: false; reason: string }

/** Documented in docs/license.md; change both together. */
export const CHECK_EVERY_WHILE_VALID_MS = 60 * 60_000
export const CHECK_EVERY_WHILE_WITHDRAWN_MS = 15 * 60_000
export const CHECK_EVERY_WHILE_UNANSWERED_MS = 5 * 60_000

/**
 * The state after a check. Only an answer changes `withdrawn`: an unreachable server must not
 * let a gateway escape a withdrawal by cutting its network, nor withdraw a paying one.
 */
export function stateAfter(current: LicenseState, verdict: LicenseVerdict): LicenseState {
  if (verdict.answered) return verdict.status
  return current === 'withdrawn' ? 'withdrawn' : 'offline'
}

/**
 * When to ask again. Soon while the server is silent (so `license.reconnected` follows its
 * return closely) and while withdrawn (so a reinstated license lifts the block without waiting
 * an hour); hourly otherwise.
 */
export function nextCheckDelayMs(state: LicenseState, verdict: LicenseVerdict): number {
  if (!verdict.answered) return CHECK_EVERY_WHILE_UNANSWERED_MS
  return state === 'withdrawn' ? CHECK_EVERY_WHILE_WITHDRAWN_MS : CHECK_EVERY_WHILE_VALID_MS
}
