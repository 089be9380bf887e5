import type { AtError } from './at_channel.js'

/**
 * +CMS ERROR values (3GPP TS 27.005 clause 3.2.5) that say the network or the SIM could not
 * take the SMS now but may later: RP-causes 38 (network out of order), 41 (temporary failure),
 * 42 (congestion), 47 (resources unavailable); TP-FCS 0xC0 (service centre busy), 0xC2 (its
 * system failure), 0xD4 (SIM toolkit busy); 314 (SIM busy), 332 (network timeout). 331 (no
 * network service) is a signal problem of its own.
 */
const CMS_BUSY = new Set([38, 41, 42, 47, 192, 194, 212, 314, 332])
const CMS_NO_SIGNAL = new Set([331])

/** +CME ERROR values (TS 27.007 clause 9.2): 30 no network service, 32 emergency calls only; 14 SIM busy, 31 network timeout. */
const CME_NO_SIGNAL = new Set([30, 32])
const CME_BUSY = new Set([14, 31])

/**
 * The `failed` reason of an SMS the modem refused, a code the gateway shows on the message.
 * Temporary conditions get the shared codes (`NO_SIGNAL`, `NETWORK_BUSY`); anything else keeps
 * the modem's number (`CMS_ERROR_<n>`, `CME_ERROR_<n>`), so an operator can look it up.
 */
export function sendFailureReason(error: AtError): string {
  if (error.timedOut) return 'MODEM_NOT_ANSWERING'
  if (error.result === 'port closed') return 'MODEM_DISCONNECTED'
  const cms = error.cms
  if (cms !== null) return CMS_NO_SIGNAL.has(cms) ? 'NO_SIGNAL' : CMS_BUSY.has(cms) ? 'NETWORK_BUSY' : `CMS_ERROR_${cms}`
  const cme = error.cme
  if (cme !== null) return CME_NO_SIGNAL.has(cme) ? 'NO_SIGNAL' : CME_BUSY.has(cme) ? 'NETWORK_BUSY' : `CME_ERROR_${cme}`
  return 'MODEM_ERROR'
}
