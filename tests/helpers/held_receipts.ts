import { PhoneAgent } from '../../agent/src/phone_agent.js'
import { SimulatorDriver, type SimulatorOptions } from '../../agent/src/drivers/simulator.js'

/**
 * A simulated phone whose delivery receipts wait for the test: `sent` and `delivered` then
 * reach the gateway in separate reports, as they do from a real carrier.
 */
export class HeldReceiptsDriver extends SimulatorDriver {
  #listeners: Array<(messageId: string) => void> = []
  #held: string[] = []

  constructor(options: SimulatorOptions = {}) {
    super({ ...options, deliveryRate: 0 })
  }

  override async send(order: Parameters<SimulatorDriver['send']>[0]) {
    const outcome = await super.send(order)
    if (outcome.ok) this.#held.push(order.messageId)
    return outcome
  }

  override onDelivered(listener: (messageId: string) => void) {
    this.#listeners.push(listener)
    super.onDelivered(listener)
  }

  /** The carrier's receipts for every SMS sent so far arrive now. */
  deliverAll() {
    for (const messageId of this.#held.splice(0)) this.#listeners.forEach((listener) => listener(messageId))
  }
}

/** A simulated phone paired with `code` and connected, whose receipts wait for `driver.deliverAll()`. */
export async function phoneWithHeldReceipts(code: string, name = 'Receipts phone') {
  const driver = new HeldReceiptsDriver()
  const paired = await PhoneAgent.pair(process.env.GATEWAY_PUBLIC_URL!, code, { name, sims: driver.sims() })
  const agent = new PhoneAgent({ gatewayUrl: process.env.GATEWAY_PUBLIC_URL!, credential: paired.credential, driver })
  await agent.connect()
  return { agent, driver, deviceId: paired.device.id }
}
