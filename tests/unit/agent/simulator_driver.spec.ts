import { test } from '@japa/runner'
import { SimulatorDriver } from '../../../agent/src/drivers/simulator.js'
import { simulatorSettings } from '../../../agent/src/simulator_flags.js'
import type { InboundSms } from '../../../agent/src/sms_driver.js'

test.group('Simulator driver and its command-line flags', () => {
  test('no flags: the settings the simulated phone always had (one SIM, 200 ms, no failures, every receipt, no inbound)', ({ assert }) => {
    assert.deepEqual(simulatorSettings({}), {
      sims: [{ slot: 0, label: 'SIM 1', operator: 'Simulated' }],
      latencyMs: 200,
      failureRate: 0,
      deliveryRate: 1,
      inboundEveryMs: 0,
    })
  })

  test('flags as typed become the driver settings', ({ assert }) => {
    const settings = simulatorSettings({ 'sims': '2', 'latency': '1500', 'failure-rate': '0.1', 'delivery-rate': '0.75', 'inbound-every': '30' })
    assert.deepEqual(settings.sims!.map((sim) => sim.slot), [0, 1])
    assert.deepInclude(settings, { latencyMs: 1500, failureRate: 0.1, deliveryRate: 0.75, inboundEveryMs: 30_000 })
  })

  test('a bad value is refused with the flag, the range and what was given', ({ assert }) => {
    const refused: Array<[Record<string, string>, RegExp]> = [
      [{ 'sims': '0' }, /--sims must be a whole number from 1 to 2 \(got "0"\)/],
      [{ 'sims': '1.5' }, /--sims must be a whole number/],
      [{ 'latency': '-1' }, /--latency must be a whole number from 0 to 60000/],
      [{ 'failure-rate': 'often' }, /--failure-rate must be a number from 0 to 1 \(got "often"\)/],
      [{ 'delivery-rate': '' }, /--delivery-rate must be a number/],
      [{ 'inbound-every': '-5' }, /--inbound-every must be a number from 0 to 86400/],
    ]
    for (const [values, message] of refused) assert.throws(() => simulatorSettings(values), message)
  })

  test('inbound generation: replies arrive from numbers it sent to, on its SIMs, until stopped', async ({ assert }) => {
    const driver = new SimulatorDriver({ inboundEveryMs: 20, sims: [{ slot: 0 }, { slot: 1 }] })
    const received: InboundSms[] = []
    driver.onInbound((sms) => received.push(sms))
    await driver.send({ messageId: '1', to: '+33612345678', text: 'Hello', simSlot: 0 })
    driver.start()
    await new Promise((resolve) => setTimeout(resolve, 120))
    driver.stop()
    const count = received.length
    await new Promise((resolve) => setTimeout(resolve, 60))
    assert.isAtLeast(count, 2)
    assert.equal(received.length, count, 'nothing after stop()')
    assert.isTrue(received.every((sms) => sms.from === '+33612345678' && [0, 1].includes(sms.simSlot)))
    assert.equal(new Set(received.map((sms) => sms.ref)).size, count)
  })

  test('failure and delivery-receipt rates decide each send', async ({ assert }) => {
    const draws = [0.05, 0.5, 0.5, 0.95]
    const driver = new SimulatorDriver({ failureRate: 0.1, deliveryRate: 0.9, random: () => draws.shift()! })
    const delivered: string[] = []
    driver.onDelivered((messageId) => delivered.push(messageId))
    assert.deepEqual(await driver.send({ messageId: 'a', to: '+33612345678', text: 'x', simSlot: 0 }), { ok: false, reason: 'GENERIC_FAILURE' })
    assert.deepEqual(await driver.send({ messageId: 'b', to: '+33612345678', text: 'x', simSlot: 0 }), { ok: true })
    await new Promise((resolve) => setImmediate(resolve))
    assert.deepEqual(delivered, ['b'])
  })
})
