import { test } from '@japa/runner'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { HandledOrders, KEEP_HANDLED_MS } from '../../../agent/src/handled_orders.js'
import { PhoneAgent } from '../../../agent/src/phone_agent.js'
import { runPhone } from '../../../agent/src/run_phone.js'
import { SimulatorDriver } from '../../../agent/src/drivers/simulator.js'
import { CREDENTIAL, eventually, fakeGateway } from './fake_gateway.js'

/** docs/device-protocol.md §5: handled messageIds are remembered for a day, restarts included. */
test.group('Phone agent: handled orders and the state file', (group) => {
  let folder: string
  let stateFile: string
  group.each.setup(() => {
    folder = mkdtempSync(join(tmpdir(), 'agent-state-'))
    stateFile = join(folder, 'phone-state.json')
    return () => rmSync(folder, { recursive: true, force: true })
  })

  const reportsFor = (frames: Array<Record<string, any>>, messageId: string) => frames.filter((frame) => frame.messageId === messageId).map((frame) => frame.type)

  test('an order sent again after the agent restarted with the same state file is reported, not sent twice', async ({ assert }) => {
    const gateway = await fakeGateway()
    try {
      const first = await runPhone({ gateway: gateway.url, credential: CREDENTIAL, stateFile, simulator: { latency: '300' } }, () => {})
      await eventually(() => first.agent.connected)
      gateway.order('981')
      // Written before the driver sends: an agent killed mid-send must not send again either.
      await eventually(() => existsSync(stateFile) && readFileSync(stateFile, 'utf8').includes('"981":["sending"'))
      await eventually(() => reportsFor(gateway.frames, '981').includes('sent'))
      await first.agent.idle()
      await first.stop()
      assert.lengthOf((first.driver as SimulatorDriver).sent, 1)

      const before = gateway.frames.length
      const second = await runPhone({ gateway: gateway.url, credential: CREDENTIAL, stateFile, simulator: { latency: '0' } }, () => {})
      await eventually(() => second.agent.connected)
      gateway.order('981')
      await eventually(() => reportsFor(gateway.frames.slice(before), '981').includes('sent'))
      await second.agent.idle()
      await second.stop()

      assert.deepEqual(reportsFor(gateway.frames.slice(before), '981'), ['accepted', 'sent'])
      assert.lengthOf((second.driver as SimulatorDriver).sent, 0)
      // The file says what was done, never to whom or what.
      const state = readFileSync(stateFile, 'utf8')
      assert.notInclude(state, '+33612345678')
      assert.notInclude(state, 'Your code')
      assert.deepEqual(readdirSync(folder), ['phone-state.json'])
    } finally {
      await gateway.stop()
    }
  })

  test('a send cut short by a stop is never tried again: reported failed with OUTCOME_UNKNOWN', async ({ assert }) => {
    writeFileSync(stateFile, JSON.stringify({ orders: { 77: ['sending', Date.now()] } }))
    const gateway = await fakeGateway()
    try {
      const phone = await runPhone({ gateway: gateway.url, credential: CREDENTIAL, stateFile, simulator: { latency: '0' } }, () => {})
      await eventually(() => phone.agent.connected)
      gateway.order('77')
      await eventually(() => reportsFor(gateway.frames, '77').includes('failed'))
      await phone.agent.idle()
      await phone.stop()
      assert.equal(gateway.frames.find((frame) => frame.type === 'failed')!.reason, 'OUTCOME_UNKNOWN')
      assert.lengthOf((phone.driver as SimulatorDriver).sent, 0)
    } finally {
      await gateway.stop()
    }
  })

  test('a failed attempt ordered again is tried again (nothing left the phone)', async ({ assert }) => {
    const gateway = await fakeGateway()
    // First send fails, the second succeeds.
    const draws = [0, 0.9, 0.9]
    const driver = new SimulatorDriver({ failureRate: 0.5, random: () => draws.shift() ?? 0.9 })
    const agent = new PhoneAgent({ gatewayUrl: gateway.url, credential: CREDENTIAL, driver })
    try {
      await agent.connect()
      gateway.order('5')
      await eventually(() => reportsFor(gateway.frames, '5').includes('failed'))
      gateway.order('5')
      await eventually(() => reportsFor(gateway.frames, '5').includes('sent'))
      assert.lengthOf(driver.sent, 1)
    } finally {
      await agent.disconnect()
      await gateway.stop()
    }
  })

  test('ids older than a day are forgotten, in memory and in the file; the file is replaced whole', async ({ assert }) => {
    let now = Date.parse('2025-03-01T10:00:00Z')
    const orders = new HandledOrders(stateFile, () => now)
    await orders.record('old', 'sent')
    now += KEEP_HANDLED_MS - 1
    await orders.record('recent', 'failed')
    assert.equal(new HandledOrders(stateFile, () => now).outcome('old'), 'sent', 'kept for a full day')
    now += 2
    await orders.record('new', 'sent')
    assert.isUndefined(orders.outcome('old'))
    assert.deepEqual(Object.keys(JSON.parse(readFileSync(stateFile, 'utf8')).orders), ['recent', 'new'])
    // A file read a day later starts without what has expired.
    now += KEEP_HANDLED_MS + 1
    const later = new HandledOrders(stateFile, () => now)
    assert.isUndefined(later.outcome('recent'))
    assert.isUndefined(later.outcome('new'))
    assert.deepEqual(readdirSync(folder), ['phone-state.json'])
  })

  test('an unreadable state file stops the agent with one clear line', async ({ assert }) => {
    writeFileSync(stateFile, '{not json')
    await assert.rejects(() => runPhone({ gateway: 'http://127.0.0.1:1', credential: CREDENTIAL, stateFile }, () => {}), /cannot read the state file .*phone-state\.json/)
    await assert.rejects(
      () => runPhone({ gateway: 'http://127.0.0.1:1', credential: CREDENTIAL, stateFile: join(folder, 'missing', 'state.json') }, () => {}),
      /cannot write the state file/
    )
  })
})
