import { test } from '@japa/runner'
import { PhoneStopped, runPhone } from '../../../agent/src/run_phone.js'
import { CREDENTIAL, eventually, fakeGateway } from './fake_gateway.js'

test.group('Phone agent reconnection (a real socket server that goes away and comes back)', (group) => {
  let crashes: Error[] = []
  const onCrash = (error: Error) => crashes.push(error)
  group.each.setup(() => {
    crashes = []
    process.on('uncaughtException', onCrash)
    return () => void process.off('uncaughtException', onCrash)
  })

  test('after a gateway restart two connects at once share one socket; unacked frames go again on it, no crash', async ({ assert }) => {
    // The gateway stops before storing the phone's status: that frame must go again afterwards.
    // Later upgrades are slow, so a second socket would still be CONNECTING at the first welcome
    // (the crash: "WebSocket is not open: readyState 0").
    const gateway = await fakeGateway({ acks: (type) => type !== 'status', slowLaterUpgradesMs: 300 })
    const phone = await runPhone({ gateway: gateway.url, credential: CREDENTIAL, retryMs: 60_000 }, () => {})
    try {
      await eventually(() => gateway.frames.some((frame) => frame.type === 'status'))
      const status = gateway.frames.find((frame) => frame.type === 'status')!
      await gateway.stop()
      await eventually(() => !phone.agent.connected)
      await gateway.start()
      const before = gateway.frames.length
      // What the retry loop and its watchdog did at once after the restart.
      await Promise.all([phone.agent.connect(), phone.agent.connect()])
      await eventually(() => gateway.frames.slice(before).some((frame) => frame.id === status.id))
      await new Promise((resolve) => setTimeout(resolve, 500))

      assert.deepEqual(crashes, [])
      assert.isTrue(phone.agent.connected)
      assert.lengthOf(gateway.open, 1)
      assert.lengthOf(gateway.sockets, 2, 'one socket before the restart, one after')
    } finally {
      await phone.stop()
      await gateway.stop()
    }
  }).timeout(20_000)

  test('the retry loop alone reconnects after the gateway comes back, with one socket', async ({ assert }) => {
    const gateway = await fakeGateway({ slowLaterUpgradesMs: 300 })
    const lines: string[] = []
    const phone = await runPhone({ gateway: gateway.url, credential: CREDENTIAL, retryMs: 100 }, (line) => lines.push(line))
    try {
      await eventually(() => phone.agent.connected)
      await gateway.stop()
      await eventually(() => lines.some((line) => line.startsWith('cannot connect')))
      await gateway.start()
      await eventually(() => phone.agent.connected && gateway.open.length === 1)
      await new Promise((resolve) => setTimeout(resolve, 500))

      assert.deepEqual(crashes, [])
      assert.lengthOf(gateway.sockets, 2)
      assert.lengthOf(gateway.open, 1)
      assert.equal(lines.filter((line) => line === 'connected').length, 2)
    } finally {
      await phone.stop()
      await gateway.stop()
    }
  })

  test('a refused credential (401) stops the agent at once with "paired again", no retry loop', async ({ assert }) => {
    const gateway = await fakeGateway()
    const lines: string[] = []
    const phone = await runPhone({ gateway: gateway.url, credential: 'dev_1.unknown', retryMs: 10 }, (line) => lines.push(line))
    try {
      await assert.rejects(() => phone.ended, /401.*must be paired again/)
      await assert.rejects(() => phone.ended, PhoneStopped)
      await new Promise((resolve) => setTimeout(resolve, 100))
      assert.equal(gateway.attempts, 1)
      assert.notExists(lines.find((line) => line.includes('retrying')))
    } finally {
      await phone.stop()
      await gateway.stop()
    }
  })

  test('unpaired while connected (close code 4001): the agent stops with "paired again"', async ({ assert }) => {
    const gateway = await fakeGateway()
    const phone = await runPhone({ gateway: gateway.url, credential: CREDENTIAL, retryMs: 10 }, () => {})
    try {
      await eventually(() => phone.agent.connected)
      gateway.closeNewest(4001)
      await assert.rejects(() => phone.ended, /unpaired.*must be paired again/)
      assert.equal(gateway.attempts, 1)
    } finally {
      await phone.stop()
      await gateway.stop()
    }
  })

  test('a frame made while the gateway is away waits, and goes out once the gateway is back', async ({ assert }) => {
    const gateway = await fakeGateway()
    const phone = await runPhone({ gateway: gateway.url, credential: CREDENTIAL, retryMs: 50 }, () => {})
    try {
      await eventually(() => phone.agent.connected)
      await gateway.stop()
      await eventually(() => !phone.agent.connected)
      phone.agent.heartbeat()
      await gateway.start()
      await eventually(() => gateway.frames.some((frame) => frame.type === 'heartbeat'))
      await phone.agent.idle()
      assert.deepEqual(crashes, [])
    } finally {
      await phone.stop()
      await gateway.stop()
    }
  })
})
