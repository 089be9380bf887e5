/**
 * The kinds of phone a pairing code can be made for (`POST /api/v1/devices/pairing-codes`,
 * body `app`). Our agent is built in; a channel module adds its own kind from its provider's
 * `register()` (before any route is built), so the devices module never names another kind.
 */
export interface PairingApp {
  /** The `devices.kind` of the phones it pairs, also the `app` of the request. */
  name: string
  /** Digits only: the app's code field takes nothing else. Otherwise letters and digits. */
  digitsOnly: boolean
  /** The address the app must be given (`apiUrl` of the answer), from the gateway's public address (no trailing slash). */
  apiUrl?: (gatewayUrl: string) => string
}

const apps = new Map<string, PairingApp>([['agent', { name: 'agent', digitsOnly: false }]])

export const pairingApps = {
  add(app: PairingApp): void {
    if (apps.has(app.name)) throw new Error(`Two pairing apps named ${app.name}`)
    apps.set(app.name, app)
  },
  get(name: string): PairingApp | undefined {
    return apps.get(name)
  },
  names(): string[] {
    return [...apps.keys()]
  },
}
