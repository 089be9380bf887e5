import { test } from '@japa/runner'
import app from '@adonisjs/core/services/app'
import db from '@adonisjs/lucid/services/db'
import type { ApiClient } from '@japa/api-client'
import WebSocket from 'ws'
import { SettingsStore } from '#core/settings/settings_store'
import { settingsCatalogue } from '#core/settings/settings_catalogue'
import { useManualClock } from '#tests/helpers/clock'
import { useTestKeys } from '#tests/helpers/callers'
import { clearDevices, pairingCode } from '#tests/helpers/devices'
import { clearMessaging, sendAs } from '#tests/helpers/messages'
import { eventually } from '#tests/helpers/phones'
import { PhoneChannels } from '#modules/devices/channels/phone_channels'
import { Dispatcher } from '#modules/messages/dispatch/dispatcher'
import { PhoneReportStore } from '#modules/devices/services/phone_report_store'
import { OrderReportQueue } from '#modules/messages/dispatch/order_report_queue'
import { statementsRunBy } from '#tests/helpers/sql_trace'

/**
 * Every statement waits its turn on the one SQLite connection, so the hot paths are held to
 * how many statements they run (counted by SQLite itself, BEGIN and COMMIT included). Each
 * test says what the code ran before the messages module took over the messages' state.
 */
test.group('Statements per dispatch pass and per report batch', (group) => {
  let settings: SettingsStore
  let sockets: WebSocket[] = []
  let restoreClock: () => void

  group.setup(() => useTestKeys())
  group.each.setup(async () => {
    await clearMessaging()
    await clearDevices()
    settings = await app.container.make(SettingsStore)
    await settings.update({ sending: settingsCatalogue.defaults('sending') })
    restoreClock = useManualClock('2026-06-10T10:00:00.000Z').restore
    sockets = []
    return async () => {
      // Each phone's going away is handled before the next test counts: a late `disconnected`
      // (a device update, its orders read again) would land in that test's window.
      const hub = await app.container.make(PhoneChannels)
      for (const socket of sockets) socket.close()
      await eventually(() => hub.connectedDevices().length === 0)
      await hub.settled()
      restoreClock()
      await settings.update({ sending: settingsCatalogue.defaults('sending') })
    }
  })

  /** A paired phone on a bare socket that never answers its orders (nothing runs behind the count). */
  async function mutePhone(client: ApiClient, sims = [{ slot: 0 }]) {
    const code = await pairingCode(client)
    const paired = (await client.post('/api/v1/devices/pair').json({ code, name: 'Mute', sims })).body()
    const socket = new WebSocket(`${process.env.GATEWAY_PUBLIC_URL!.replace('http', 'ws')}/api/v1/devices/socket`, {
      headers: { authorization: `Bearer ${paired.credential}` },
    })
    sockets.push(socket)
    const orders: string[] = []
    socket.on('message', (data) => {
      const frame = JSON.parse(String(data))
      if (frame.type === 'send') orders.push(frame.messageId)
    })
    await new Promise((resolve) => socket.once('open', resolve))
    const hub = await app.container.make(PhoneChannels)
    await eventually(() => hub.isConnected(Number(paired.device.id)))
    await hub.settled()
    return { deviceId: Number(paired.device.id), orders }
  }

  async function queue(client: ApiClient, count: number, extra: Record<string, unknown> = {}) {
    const to = Array.from({ length: count }, (_, index) => `+336123${String(index).padStart(5, '0')}`)
    const answer = await sendAs(client, { to, body: 'Statement count', ...extra })
    answer.assertStatus(202)
    return answer.body().accepted.map((message: { id: string }) => Number(message.id)) as number[]
  }

  test('a pass that orders, waits for a quota and fails: 7 statements (was 15)', async ({ client, assert }) => {
    const phone = await mutePhone(client)
    await db.from('device_sims').where('device_id', phone.deviceId).update({ daily_quota: 10 })
    await queue(client, 15)
    await queue(client, 3, { deviceId: '999999' })
    const dispatcher = await app.container.make(Dispatcher)
    const statements = await statementsRunBy(() => dispatcher.pass())
    await eventually(() => phone.orders.length === 10)
    assert.equal(await db.from('messages').where('status', 'pending_quota_exceeded').count('* as n').first().then((row) => row.n), 5)
    assert.equal(await db.from('messages').where('status', 'failed').count('* as n').first().then((row) => row.n), 3)
    // 2 reads, SIM counts, orders, the quota waits together, the forced phone read once, the
    // failures together. Before: quota waits, phone reads and failures one by one = 15.
    assert.isAtMost(statements.length, 7, statements.join('\n'))
  })

  test('a pass that holds for the minimum interval: 5 statements (was 13)', async ({ client, assert }) => {
    const phone = await mutePhone(client)
    await settings.update({ sending: { simMinIntervalSeconds: 60 } })
    await queue(client, 10)
    const dispatcher = await app.container.make(Dispatcher)
    const statements = await statementsRunBy(() => dispatcher.pass())
    await eventually(() => phone.orders.length === 1)
    assert.equal(await db.from('messages').whereNotNull('held_until').count('* as n').first().then((row) => row.n), 9)
    // 2 reads, SIM counts, the order, the holds together. Before: the holds one by one = 13.
    assert.isAtMost(statements.length, 5, statements.join('\n'))
  })

  test('a batch of 40 reports (taken, sent, delivered, failed three ways): 4 statements (was 97)', async ({ client, assert }) => {
    const phone = await mutePhone(client)
    await queue(client, 40)
    await (await app.container.make(Dispatcher)).pass()
    await eventually(() => phone.orders.length === 40)
    const ids = phone.orders.map(Number)
    const reports = await app.container.make(OrderReportQueue)
    const at = new Date('2026-06-10T10:00:05.000Z')
    const deviceId = phone.deviceId
    const statements = await statementsRunBy(() =>
      Promise.all([
        ...ids.slice(0, 30).map((messageId) => reports.add({ kind: 'accepted', deviceId, messageId, at })),
        ...ids.slice(0, 10).map((messageId) => reports.add({ kind: 'sent', deviceId, messageId, at })),
        ...ids.slice(10, 20).map((messageId) => reports.add({ kind: 'delivered', deviceId, messageId, at })),
        ...ids.slice(20, 30).map((messageId) => reports.add({ kind: 'failed', deviceId, messageId, at, errorCode: 'RADIO_OFF', maxAttempts: 4 })),
        ...ids.slice(30, 35).map((messageId) => reports.add({ kind: 'failed', deviceId, messageId, at, errorCode: 'NO_SERVICE', maxAttempts: 1 })),
        ...ids.slice(35, 40).map((messageId) => reports.add({ kind: 'failed', deviceId, messageId, at, errorCode: 'OUTCOME_UNKNOWN', maxAttempts: 4 })),
      ])
    )
    const statuses = await db.from('messages').whereIn('id', ids).orderBy('id').select('id', 'status')
    const statusOf = (id: number) => statuses.find((row) => row.id === id)!.status
    assert.deepEqual(
      [ids[0], ids[10], ids[20], ids[30], ids[35]].map(statusOf),
      ['sent', 'delivered', 'queued', 'failed', 'failed']
    )
    // 40 handed out, 15 given back; an outcome unknown keeps its count.
    assert.equal((await db.from('device_sims').where('device_id', deviceId).first()).sent_today, 25)
    // Taken (the receipts of messages taken in the same batch written with them: no statement of
    // their own, 5 before), the failures read and written together, the SIM's count given back
    // once. Before: per failure a transaction (BEGIN, read, SIM count unless the outcome is
    // unknown, update, COMMIT): 2 + 15 × 5 + 5 × 4 = 97.
    assert.isAtMost(statements.length, 4, statements.join('\n'))
  })

  test('an inbound SMS: 5 statements (was 6)', async ({ client, assert }) => {
    const phone = await mutePhone(client)
    const reports = await app.container.make(PhoneReportStore)
    const statements = await statementsRunBy(async () => {
      const taken = await reports.inbound(phone.deviceId, { ref: 'sms-1', from: '+33612345678', body: 'Hello', receivedAt: null })
      await taken.stored
    })
    assert.equal(await db.from('messages').where('direction', 'in').count('* as n').first().then((row) => row.n), 1)
    // The repeat check, then BEGIN, the conversation upsert, the message, COMMIT. Before: 6.
    assert.isAtMost(statements.length, 5, statements.join('\n'))
  })
})
