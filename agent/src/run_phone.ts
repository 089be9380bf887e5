import { PhoneAgent } from './phone_agent.js'
import { SimulatorDriver } from './drivers/simulator.js'
import { TermuxDriver } from './drivers/termux.js'
import { AtModemDriver } from './drivers/at_modem.js'
import type { SmsDriver } from './sms_driver.js'

export interface PhoneOptions {
  gateway: string
  /**
   * simulator (default): sends nothing over the air; termux: an Android phone under Termux;
   * modem: a serial GSM modem (AT commands) at `modemPath`.
   */
  driver?: 'simulator' | 'termux' | 'modem'
  modemPath?: string
  modemBaudRate?: number
  /** A pairing code (first run) or the credential of an earlier run. */
  pairingCode?: string
  credential?: string
  name?: string
  failureRate?: number
  deliveryRate?: number
  latencyMs?: number
}

/**
 * Pairs (or reconnects) a phone and keeps it connected until stopped, reconnecting when the
 * socket drops. With the simulator driver: a first SMS end to end without a real phone.
 */
export async function runPhone(options: PhoneOptions, log: (line: string) => void) {
  const termux = options.driver === 'termux' ? new TermuxDriver() : null
  if (options.driver === 'modem' && !options.modemPath) throw new Error('the modem driver needs the serial device (--device /dev/ttyUSB2)')
  const modem = options.driver === 'modem' ? new AtModemDriver({ path: options.modemPath!, baudRate: options.modemBaudRate }) : null
  const driver: SmsDriver =
    termux ??
    modem ??
    new SimulatorDriver({
      failureRate: options.failureRate,
      deliveryRate: options.deliveryRate,
      latencyMs: options.latencyMs ?? 200,
      sims: [{ slot: 0, label: 'SIM 1', operator: 'Simulated' }],
    })
  await termux?.start()
  await modem?.start()
  let credential = options.credential
  if (!credential) {
    if (!options.pairingCode) throw new Error('give a pairing code (--pair) or the credential of an earlier run (--credential)')
    const paired = await PhoneAgent.pair(options.gateway, options.pairingCode, {
      name: options.name ?? (termux ? 'Android phone' : modem ? 'GSM modem' : 'Simulated phone'),
      model: termux ? 'Termux' : modem ? 'AT modem' : 'Simulator',
      appVersion: 'agent',
      sims: driver.sims(),
    })
    credential = paired.credential
    log(`paired as device ${paired.device.id}; to reconnect later use --credential ${credential}`)
  }
  const agent = new PhoneAgent({ gatewayUrl: options.gateway, credential, driver })
  const originalSend = driver.send.bind(driver)
  driver.send = async (order) => {
    const outcome = await originalSend(order)
    log(`SMS ${order.messageId} to ${order.to.slice(0, 4)}… from SIM ${order.simSlot}: ${outcome.ok ? 'sent' : `failed (${outcome.reason})`}`)
    return outcome
  }
  let stopped = false
  const connect = async () => {
    while (!stopped) {
      try {
        await agent.connect()
        log('connected')
        await agent.reportStatus()
        return
      } catch (error) {
        log(`cannot connect (${(error as Error).message}); retrying in 5 s`)
        await new Promise((resolve) => setTimeout(resolve, 5000))
      }
    }
  }
  await connect()
  const watchdog = setInterval(() => {
    if (!stopped && !agent.connected) void connect()
  }, 5000)
  return {
    agent,
    driver,
    async stop() {
      stopped = true
      clearInterval(watchdog)
      termux?.stop()
      modem?.stop()
      await agent.disconnect()
    },
  }
}
