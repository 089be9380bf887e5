import { test } from '@japa/runner'
import emitter from '@adonisjs/core/services/emitter'
import db from '@adonisjs/lucid/services/db'
import type { ApiClient } from '@japa/api-client'
import WebSocket from 'ws'
import { useManualClock } from '#tests/helpers/clock'
import { testKeys, useTestKeys } from '#tests/helpers/callers'
import { clearDevices, pairingCode } from '#tests/helpers/devices'
import { clearMessaging } from '#tests/helpers/messages'
import { eventually, settle, useDeviceJobs } from '#tests/helpers/phones'

/** What docs/device-protocol.md says of the edges a phone agent's author has to know. */
test.group('Device protocol: what the document says of its edges', (group) => {
  let clock: ReturnType<typeof useManualClock>['clock']
  let jobs: Awaited<ReturnType<typeof useDeviceJobs>>
  let sockets: WebSocket[] = []
  let events: ReturnType<typeof emitter.fake>

  group.setup(() => useTestKeys())
  group.each.setup(async () => {
    await clearMessaging()
    await clearDevices()
    const manual = useManualClock('2026-06-10T10:00:00.000Z')
    clock = manual.clock
    jobs = await useDeviceJobs(clock)
    sockets = []
    events = emitter.fake(['device.offline', 'message.received'])
    return async () => {
      for (const socket of sockets) socket.close()
      await jobs.hub.settled()
      emitter.restore()
      await jobs.stop()
      manual.restore()
    }
  })

  const flush = () => settle(clock, jobs.runner, jobs.hub, [])

  /** A phone on a bare socket: says only what the test makes it say. */
  async function rawPhone(client: ApiClient, name: string) {
    const code = await pairingCode(client)
    const paired = (await client.post('/api/v1/devices/pair').json({ code, name, sims: [{ slot: 0 }] })).body()
    const socket = new WebSocket(`${process.env.GATEWAY_PUBLIC_URL!.replace('http', 'ws')}/api/v1/devices/socket`, {
      headers: { authorization: `Bearer ${paired.credential}` },
    })
    sockets.push(socket)
    const acks: string[] = []
    socket.on('message', (data) => {
      const frame = JSON.parse(String(data))
      if (frame.type === 'ack') acks.push(frame.of)
    })
    const closed = new Promise<number>((resolve) => socket.once('close', (closeCode) => resolve(closeCode)))
    await new Promise((resolve) => socket.once('open', resolve))
    return { deviceId: String(paired.device.id), socket, acks, closed }
  }

  const device = async (client: ApiClient, id: string) => (await client.get(`/api/v1/devices/${id}`).header('x-api-key', testKeys.read)).body()

  test('a frame over 256 KiB closes the socket with 1009; one just under is taken', async ({ client, assert }) => {
    const phone = await rawPhone(client, 'Big frames')
    const frame = (size: number) => {
      const base = JSON.stringify({ type: 'heartbeat', id: 'f', pad: '' })
      return JSON.stringify({ type: 'heartbeat', id: `f${size}`, pad: 'x'.repeat(size - base.length - String(size).length) })
    }
    phone.socket.send(frame(256 * 1024))
    await eventually(() => phone.acks.includes(`f${256 * 1024}`))
    phone.socket.send(frame(256 * 1024 + 1))
    assert.equal(await phone.closed, 1009)
  })

  test('a frame of a type the gateway does not know is acked and changes nothing', async ({ client, assert }) => {
    const phone = await rawPhone(client, 'Newer agent')
    await flush()
    const before = await device(client, phone.deviceId)
    phone.socket.send(JSON.stringify({ type: 'selfie', id: 'u1', battery: { level: 3 } }))
    await eventually(() => phone.acks.includes('u1'))
    const after = await device(client, phone.deviceId)
    assert.deepEqual(after.battery, before.battery)
    assert.equal(after.status, 'online')
  })

  test('hello: an appVersion over 40 characters is cut to its first 40', async ({ client, assert }) => {
    const phone = await rawPhone(client, 'Long version')
    phone.socket.send(JSON.stringify({ type: 'hello', id: 'h1', appVersion: `1.2.3-${'b'.repeat(60)}` }))
    await eventually(() => phone.acks.includes('h1'))
    assert.equal((await device(client, phone.deviceId)).appVersion, `1.2.3-${'b'.repeat(34)}`)
  })

  test('a ref is the phone’s own: two phones may use the same one, a phone repeating its own is one SMS', async ({ client, assert }) => {
    const first = await rawPhone(client, 'First')
    const second = await rawPhone(client, 'Second')
    const inbound = (id: string) => JSON.stringify({ type: 'inbound', id, ref: 'sms-1', from: '+33612345678', body: 'Hello', receivedAt: '2026-06-10T09:59:00.000Z' })
    first.socket.send(inbound('a1'))
    second.socket.send(inbound('b1'))
    first.socket.send(inbound('a2'))
    await eventually(() => first.acks.includes('a2') && second.acks.includes('b1'))
    const stored = await db.from('messages').where('direction', 'in').select('device_id')
    assert.sameMembers(
      stored.map((row) => row.device_id),
      [first.deviceId, second.deviceId]
    )
  })

  test('WebSocket ping frames are not a sign of life: a phone that only pings is offline after 5 minutes', async ({ client, assert }) => {
    const phone = await rawPhone(client, 'Pinger')
    await flush()
    for (let minute = 0; minute < 6; minute++) {
      phone.socket.ping()
      await clock.advance(60_000)
      await flush()
    }
    events.assertEmittedCount('device.offline', 1)
    assert.equal((await device(client, phone.deviceId)).status, 'offline')
  })

  test('pairing needs at least one SIM', async ({ client, assert }) => {
    const code = await pairingCode(client)
    const refused = await client.post('/api/v1/devices/pair').json({ code, name: 'No SIM', sims: [] })
    refused.assertStatus(400)
    assert.equal(refused.body().error.code, 'VALIDATION_ERROR')
    assert.equal(refused.body().error.details[0].field, 'sims')
    const missing = await client.post('/api/v1/devices/pair').json({ code, name: 'No SIM' })
    missing.assertStatus(400)
    // The code was not used up by the refusals.
    ;(await client.post('/api/v1/devices/pair').json({ code, name: 'One SIM', sims: [{ slot: 0 }] })).assertStatus(201)
  })
})
