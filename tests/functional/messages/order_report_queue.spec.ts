import { test } from '@japa/runner'
import app from '@adonisjs/core/services/app'
import db from '@adonisjs/lucid/services/db'
import emitter from '@adonisjs/core/services/emitter'
import { useTestKeys } from '#tests/helpers/callers'
import { clearMessaging, sendAs } from '#tests/helpers/messages'
import { OrderReportQueue } from '#modules/messages/dispatch/order_report_queue'
import { RETRY_WAITS_MS } from '#modules/messages/services/message_ledger'

const PHONE = 7
const AT = new Date('2026-06-01T10:00:00.000Z')

/**
 * The phones' reports are stored together (group commit): reports handed in together land in
 * one batch, and the batch must give what reports stored one by one, in order, would give.
 */
test.group('Report queue (reports of every phone stored together)', (group) => {
  let events: ReturnType<typeof emitter.fake>
  group.setup(() => useTestKeys())
  group.each.setup(async () => {
    await clearMessaging()
    events = emitter.fake(['message.sent', 'message.delivered', 'message.failed', 'messages:retry_due'])
    return () => emitter.restore()
  })

  /** Messages queued through the API, then ordered to phone 7 as the dispatcher does. */
  async function orderedMessages(client: any, count: number): Promise<number[]> {
    const to = Array.from({ length: count }, (_, index) => `+3361234567${index}`)
    const answer = await sendAs(client, { to, body: 'Report queue test' })
    answer.assertStatus(202)
    const ids = answer.body().accepted.map((message: { id: string }) => Number(message.id))
    await db.from('messages').whereIn('id', ids).update({ ordered_at: AT.toISOString(), device_id: String(PHONE), sim_slot: 0 })
    return ids
  }
  const row = (id: number) => db.from('messages').where('id', id).select('status', 'attempts', 'sent_at', 'delivered_at', 'held_until', 'error_code').first()

  test('acceptance and sending in one batch: sent with one attempt, announced once; a lost acceptance too', async ({ client, assert }) => {
    const [both, acceptedOnly, sentOnly, otherPhone] = await orderedMessages(client, 4)
    const queue = await app.container.make(OrderReportQueue)
    const at = (seconds: number) => new Date(AT.getTime() + seconds * 1000)
    // Handed in together, as frames of several phones arriving at once: one batch.
    await Promise.all([
      queue.add({ kind: 'accepted', deviceId: PHONE, messageId: both, at: at(1) }),
      queue.add({ kind: 'accepted', deviceId: PHONE, messageId: acceptedOnly, at: at(1) }),
      queue.add({ kind: 'sent', deviceId: PHONE, messageId: both, at: at(2) }),
      queue.add({ kind: 'sent', deviceId: PHONE, messageId: sentOnly, at: at(3) }),
      queue.add({ kind: 'sent', deviceId: PHONE + 1, messageId: otherPhone, at: at(3) }),
    ])

    assert.deepInclude(await row(both), { status: 'sent', attempts: 1, sent_at: at(2).toISOString() })
    assert.deepInclude(await row(acceptedOnly), { status: 'dispatched', attempts: 1, sent_at: null })
    assert.deepInclude(await row(sentOnly), { status: 'sent', attempts: 1, sent_at: at(3).toISOString() })
    // A report from a phone the message was not ordered to changes nothing.
    assert.deepInclude(await row(otherPhone), { status: 'queued', attempts: 0 })
    events.assertEmittedCount('message.sent', 2)
    events.assertEmitted('message.sent', ({ data }) => data.id === String(both) && data.deviceId === String(PHONE) && data.at.getTime() === at(2).getTime())

    // Repeated after a reconnect, with the delivery receipt: nothing twice, delivered once.
    await Promise.all([
      queue.add({ kind: 'accepted', deviceId: PHONE, messageId: both, at: at(9) }),
      queue.add({ kind: 'sent', deviceId: PHONE, messageId: both, at: at(9) }),
      queue.add({ kind: 'accepted', deviceId: PHONE, messageId: acceptedOnly, at: at(9) }),
      queue.add({ kind: 'delivered', deviceId: PHONE, messageId: both, at: at(10) }),
      queue.add({ kind: 'delivered', deviceId: PHONE, messageId: both, at: at(11) }),
    ])
    assert.deepInclude(await row(both), { status: 'delivered', attempts: 1, sent_at: at(2).toISOString(), delivered_at: at(10).toISOString() })
    assert.deepInclude(await row(acceptedOnly), { status: 'dispatched', attempts: 1 })
    events.assertEmittedCount('message.sent', 2)
    events.assertEmittedCount('message.delivered', 1)
  })

  test('a receipt in the batch of its acceptance or send: the message written once, sent then delivered, both announced, both latencies counted', async ({ client, assert }) => {
    const [all, receiptOnly, wasAccepted] = await orderedMessages(client, 3)
    const queue = await app.container.make(OrderReportQueue)
    const at = (seconds: number) => new Date(AT.getTime() + seconds * 1000)
    await queue.add({ kind: 'accepted', deviceId: PHONE, messageId: wasAccepted, at: at(1) })
    events.assertEmittedCount('message.sent', 0)

    // Each message's row is written by one statement of the batch (the receipt folded in).
    await db.rawQuery(`CREATE TEMP TABLE report_writes (id INTEGER)`)
    await db.rawQuery(`CREATE TEMP TRIGGER report_write AFTER UPDATE ON messages BEGIN INSERT INTO report_writes VALUES (NEW.id); END`)
    try {
      await Promise.all([
        queue.add({ kind: 'accepted', deviceId: PHONE, messageId: all, at: at(2) }),
        queue.add({ kind: 'sent', deviceId: PHONE, messageId: all, at: at(3) }),
        queue.add({ kind: 'delivered', deviceId: PHONE, messageId: all, at: at(5) }),
        // A lost `sent`: the receipt says it was sent, at its own time.
        queue.add({ kind: 'delivered', deviceId: PHONE, messageId: receiptOnly, at: at(6) }),
        queue.add({ kind: 'delivered', deviceId: PHONE, messageId: receiptOnly, at: at(7) }),
        queue.add({ kind: 'sent', deviceId: PHONE, messageId: wasAccepted, at: at(8) }),
        queue.add({ kind: 'delivered', deviceId: PHONE, messageId: wasAccepted, at: at(9) }),
      ])
      const writes = await db.rawQuery(`SELECT id, COUNT(*) AS n FROM report_writes GROUP BY id ORDER BY id`)
      assert.deepEqual(writes.map((write: { id: number; n: number }) => [write.id, write.n]), [all, receiptOnly, wasAccepted].sort((a, b) => a - b).map((id) => [id, 1]))
    } finally {
      await db.rawQuery(`DROP TRIGGER temp.report_write`)
      await db.rawQuery(`DROP TABLE temp.report_writes`)
    }

    const fullRow = (id: number) => db.from('messages').where('id', id).select('status', 'attempts', 'sent_at', 'delivered_at', 'updated_at').first()
    assert.deepEqual(await fullRow(all), { status: 'delivered', attempts: 1, sent_at: at(3).toISOString(), delivered_at: at(5).toISOString(), updated_at: at(5).toISOString() })
    assert.deepEqual(await fullRow(receiptOnly), { status: 'delivered', attempts: 1, sent_at: at(6).toISOString(), delivered_at: at(6).toISOString(), updated_at: at(6).toISOString() })
    assert.deepEqual(await fullRow(wasAccepted), { status: 'delivered', attempts: 1, sent_at: at(8).toISOString(), delivered_at: at(9).toISOString(), updated_at: at(9).toISOString() })
    events.assertEmittedCount('message.sent', 3)
    events.assertEmittedCount('message.delivered', 3)
    events.assertEmitted('message.sent', ({ data }) => data.id === String(all) && data.at.getTime() === at(3).getTime())
    events.assertEmitted('message.delivered', ({ data }) => data.id === String(all) && data.at.getTime() === at(5).getTime())
    events.assertEmitted('message.delivered', ({ data }) => data.id === String(receiptOnly) && data.at.getTime() === at(6).getTime())
    // The statistics' counters see a message sent and delivered, once each.
    const [volume] = await db.rawQuery(`SELECT SUM(sent) AS sent, SUM(delivered) AS delivered, SUM(dispatched) AS dispatched, SUM(queued) AS queued FROM message_volume WHERE direction = 'out'`)
    assert.deepEqual({ ...volume }, { sent: 0, delivered: 3, dispatched: 0, queued: 0 })
    const [latency] = await db.rawQuery(`SELECT SUM(CASE WHEN stage = 'sent' THEN count END) AS sent, SUM(CASE WHEN stage = 'delivered' THEN count END) AS delivered FROM message_latency`)
    assert.deepEqual({ ...latency }, { sent: 3, delivered: 3 })

    // Delivered again, with or without its send: nothing changes twice.
    await Promise.all([
      queue.add({ kind: 'sent', deviceId: PHONE, messageId: all, at: at(20) }),
      queue.add({ kind: 'delivered', deviceId: PHONE, messageId: all, at: at(21) }),
      queue.add({ kind: 'delivered', deviceId: PHONE, messageId: receiptOnly, at: at(22) }),
    ])
    assert.deepEqual(await fullRow(all), { status: 'delivered', attempts: 1, sent_at: at(3).toISOString(), delivered_at: at(5).toISOString(), updated_at: at(5).toISOString() })
    events.assertEmittedCount('message.sent', 3)
    events.assertEmittedCount('message.delivered', 3)
  })

  test('a failure after the acceptance in the same batch: queued again for a retry, one attempt spent', async ({ client, assert }) => {
    const [retried, lastAttempt] = await orderedMessages(client, 2)
    await db.from('messages').where('id', lastAttempt).update({ attempts: 3 })
    const queue = await app.container.make(OrderReportQueue)
    await Promise.all([
      queue.add({ kind: 'accepted', deviceId: PHONE, messageId: retried, at: AT }),
      queue.add({ kind: 'failed', deviceId: PHONE, messageId: retried, at: AT, errorCode: 'RADIO_OFF', maxAttempts: 4 }),
      queue.add({ kind: 'accepted', deviceId: PHONE, messageId: lastAttempt, at: AT }),
      queue.add({ kind: 'failed', deviceId: PHONE, messageId: lastAttempt, at: AT, errorCode: 'NO_SERVICE', maxAttempts: 4 }),
    ])
    assert.deepInclude(await row(retried), {
      status: 'queued',
      attempts: 1,
      error_code: 'RADIO_OFF',
      held_until: new Date(AT.getTime() + RETRY_WAITS_MS[0]).toISOString(),
    })
    assert.deepInclude(await row(lastAttempt), { status: 'failed', attempts: 4, error_code: 'NO_SERVICE' })
    events.assertEmitted('messages:retry_due', ({ data }) => data.at.getTime() === AT.getTime() + RETRY_WAITS_MS[0])
    events.assertEmittedCount('message.failed', 1)
    events.assertEmitted('message.failed', ({ data }) => data.id === String(lastAttempt))
  })
})
