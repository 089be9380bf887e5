import { simulatorSettings, type SimulatorFlagValues } from '../simulator_flags.js'
import { AppStateStore } from './app_state.js'
import { SimulatedSmsgateApp } from './simulated_app.js'

/** Where the app's API lives on the gateway; the app appends `/device`, `/events`… to it. */
export const MOBILE_API_PATH = '/api/mobile/v1'

export interface SmsgatePhoneOptions {
  /** The gateway's address, or the API URL the pairing answer gave (`…/api/mobile/v1`). */
  gateway: string
  pairingCode?: string
  name?: string
  /** Keeps the token, login and held message ids (mode 0600). */
  stateFile?: string
  simulator?: SimulatorFlagValues
  reconnectDelayMs?: (attempt: number) => number
}

/** The API URL as the operator types it in the app: no trailing slash (the app appends `/device` as text). */
export function apiUrlOf(gateway: string): string {
  const trimmed = gateway.replace(/\/+$/, '')
  return trimmed.endsWith(MOBILE_API_PATH) ? trimmed : `${trimmed}${MOBILE_API_PATH}`
}

/**
 * `node ace phone:simulate --app smsgate`: pairs a simulated SMSGate app by code (or starts it
 * from its state file) and keeps it running. `ended` rejects with an AppStopped when the gateway
 * refuses its token (unpaired).
 */
export async function runSmsgatePhone(options: SmsgatePhoneOptions, log: (line: string) => void) {
  const settings = simulatorSettings(options.simulator ?? {})
  const state = new AppStateStore(options.stateFile)
  // Fails now, with a clear line, if the state file cannot be written.
  await state.save().catch((error: Error) => {
    throw new Error(`cannot write the state file ${options.stateFile}: ${error.message}`)
  })
  const app = new SimulatedSmsgateApp({
    apiUrl: apiUrlOf(options.gateway),
    name: options.name,
    settings,
    state,
    log,
    reconnectDelayMs: options.reconnectDelayMs,
  })
  if (options.pairingCode) {
    await app.pair(options.pairingCode)
    log(
      options.stateFile
        ? `paired as device ${app.id} (login ${app.login}); the token is kept in ${options.stateFile}: to reconnect later use --state ${options.stateFile}`
        : `paired as device ${app.id} (login ${app.login}); the token is kept nowhere: pair with --state FILE to reconnect later without a new code`
    )
  } else if (!app.registered) {
    throw new Error('give a pairing code for the SMSGate app (--pair) or the --state file of an earlier run')
  }
  const ended = app.start()
  return {
    app,
    ended,
    stop: () => app.stop(),
  }
}
