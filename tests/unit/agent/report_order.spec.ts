import { test } from '@japa/runner'
import { PhoneAgent } from '../../../agent/src/phone_agent.js'
import type { SendOrder, SendOutcome, SmsDriver } from '../../../agent/src/sms_driver.js'
import { CREDENTIAL, eventually, fakeGateway } from './fake_gateway.js'

/**
 * A driver whose carrier report comes while its send is still being answered: a modem's status
 * report overtaking the `+CMGS` answer, or one right after it while the state file is written.
 */
class ReportFirstDriver implements SmsDriver {
  #delivered: Array<(messageId: string) => void> = []
  #failed: Array<(messageId: string, reason: string) => void> = []
  constructor(private report: 'delivered' | 'failed') {}
  sims() {
    return [{ slot: 0 }]
  }
  async send(order: SendOrder): Promise<SendOutcome> {
    if (this.report === 'delivered') for (const listener of this.#delivered) listener(order.messageId)
    else for (const listener of this.#failed) listener(order.messageId, 'REJECTED_BY_RECIPIENT')
    await new Promise((resolve) => setTimeout(resolve, 50))
    return { ok: true }
  }
  async status() {
    return {}
  }
  onInbound() {}
  onDelivered(listener: (messageId: string) => void) {
    this.#delivered.push(listener)
  }
  onDeliveryFailed(listener: (messageId: string, reason: string) => void) {
    this.#failed.push(listener)
  }
}

test.group('Phone agent: a carrier report never overtakes its send', () => {
  for (const report of ['delivered', 'failed'] as const) {
    test(`a ${report} report that comes during the send goes after the sent frame`, async ({ assert }) => {
      // The gateway retries an attempt failed before `sent`: a failed report first would send
      // the SMS twice; a delivered one first would be refused as a report of a message not sent.
      const gateway = await fakeGateway()
      const agent = new PhoneAgent({ gatewayUrl: gateway.url, credential: CREDENTIAL, driver: new ReportFirstDriver(report) })
      try {
        await agent.connect()
        gateway.order('9')
        await eventually(() => gateway.frames.filter((frame) => frame.messageId === '9').length === 3)
        const types = gateway.frames.filter((frame) => frame.messageId === '9').map((frame) => frame.type)
        assert.deepEqual(types, ['accepted', 'sent', report])
      } finally {
        await agent.disconnect()
        await gateway.stop()
      }
    })
  }
})
