import { test } from '@japa/runner'
import { signInAs, testKeys, useTestKeys } from '#tests/helpers/callers'
import { clearDevices } from '#tests/helpers/devices'
import { eventually, simulatedPhone } from '#tests/helpers/phones'
import { openLiveStream } from '#tests/helpers/live_stream'

test.group('Phones live on the dashboard stream', (group) => {
  group.setup(() => useTestKeys())
  group.each.setup(() => clearDevices())

  test("a phone's new battery level or signal is announced once, not every unchanged report", async ({ client, assert }) => {
    const session = await signInAs(client, 'readonly')
    const stream = await openLiveStream(client, session, 'devices')
    const phone = await simulatedPhone(client, { battery: { level: 80, charging: false }, signal: 3 })
    try {
      await eventually(() => stream.events().some((event) => event.type === 'device.online'))
      const statusEvents = () => stream.events().filter((event) => event.type === 'device.status')
      await phone.agent.reportStatus()
      await eventually(() => statusEvents().length === 1)
      assert.deepEqual(Object.keys(statusEvents()[0]).sort(), ['at', 'deviceId', 'type'])
      assert.equal(statusEvents()[0].deviceId, String(phone.deviceId))

      // Unchanged reports, then a change: a phone's frames are handled in order, so had the
      // unchanged ones been announced they would sit before the third announcement.
      await phone.agent.reportStatus()
      await phone.agent.reportStatus()
      phone.driver.setBattery(40, false)
      await phone.agent.reportStatus()
      await eventually(() => statusEvents().length >= 2)
      await new Promise((resolve) => setTimeout(resolve, 100))
      assert.lengthOf(statusEvents(), 2)
      const device = (await client.get(`/api/v1/devices/${phone.deviceId}`).header('x-api-key', testKeys.read)).body()
      assert.deepEqual(device.battery, { level: 40, charging: false })
    } finally {
      await phone.agent.disconnect()
      stream.close()
    }
  })

  test('a dashboard subscribed to `devices` sees a phone come online and go offline, with no number or secret', async ({ client, assert }) => {
    const session = await signInAs(client, 'readonly')
    const stream = await openLiveStream(client, session, 'devices')
    const phone = await simulatedPhone(client, { name: 'Counter phone' })
    try {
      await eventually(() => stream.events().some((event) => event.type === 'device.online'))
      const online = stream.events().find((event) => event.type === 'device.online')!
      assert.deepEqual(Object.keys(online).sort(), ['at', 'deviceId', 'type'])
      assert.equal(online.deviceId, String(phone.deviceId))

      ;(await client.delete(`/api/v1/devices/${phone.deviceId}`).header('x-api-key', testKeys.admin)).assertStatus(204)
      await eventually(() => stream.events().some((event) => event.type === 'device.offline'))
      assert.equal(stream.events().find((event) => event.type === 'device.offline')!.deviceId, String(phone.deviceId))
    } finally {
      await phone.agent.disconnect()
      stream.close()
    }
  })

  test('an unpaired phone is announced as device.unpaired, even when it was offline', async ({ client, assert }) => {
    const session = await signInAs(client, 'readonly')
    const stream = await openLiveStream(client, session, 'devices')
    const phone = await simulatedPhone(client, { name: 'Drawer phone' })
    try {
      await eventually(() => stream.events().some((event) => event.type === 'device.online'))
      await phone.agent.disconnect()
      await eventually(() => stream.events().some((event) => event.type === 'device.offline'))
      ;(await client.delete(`/api/v1/devices/${phone.deviceId}`).header('x-api-key', testKeys.admin)).assertStatus(204)
      await eventually(() => stream.events().some((event) => event.type === 'device.unpaired'))
      const unpaired = stream.events().find((event) => event.type === 'device.unpaired')!
      assert.deepEqual(Object.keys(unpaired).sort(), ['at', 'deviceId', 'type'])
      assert.equal(unpaired.deviceId, String(phone.deviceId))
    } finally {
      stream.close()
    }
  })
})
