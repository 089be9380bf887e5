import { PhoneAgent } from './phone_agent.js'
import { SimulatorDriver } from './drivers/simulator.js'

export interface SimulatedPhoneOptions {
  gateway: string
  /** A pairing code (first run) or the credential of an earlier run. */
  pairingCode?: string
  credential?: string
  name?: string
  failureRate?: number
  deliveryRate?: number
  latencyMs?: number
}

/**
 * Pairs (or reconnects) a simulated phone and keeps it connected until stopped: for a first
 * SMS end to end without a real phone, and for demos. Reconnects when the socket drops.
 */
export async function runSimulatedPhone(options: SimulatedPhoneOptions, log: (line: string) => void) {
  const driver = new SimulatorDriver({
    failureRate: options.failureRate,
    deliveryRate: options.deliveryRate,
    latencyMs: options.latencyMs ?? 200,
    sims: [{ slot: 0, label: 'SIM 1', operator: 'Simulated' }],
  })
  let credential = options.credential
  if (!credential) {
    if (!options.pairingCode) throw new Error('give a pairing code (--pair) or the credential of an earlier run (--credential)')
    const paired = await PhoneAgent.pair(options.gateway, options.pairingCode, { name: options.name ?? 'Simulated phone', model: 'Simulator', appVersion: 'agent', sims: driver.sims() })
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
      await agent.disconnect()
    },
  }
}
