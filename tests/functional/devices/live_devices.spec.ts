import { test } from '@japa/runner'
import { signInAs, testKeys, useTestKeys } from '#tests/helpers/callers'
import { clearDevices } from '#tests/helpers/devices'
import { eventually, simulatedPhone } from '#tests/helpers/phones'
import { openLiveStream } from '#tests/helpers/live_stream'

test.group('Phones live on the dashboard stream', (group) => {
  group.setup(() => useTestKeys())
  group.each.setup(() => clearDevices())

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
})
