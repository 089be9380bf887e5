import { test } from '@japa/runner'
import app from '@adonisjs/core/services/app'
import db from '@adonisjs/lucid/services/db'
import emitter from '@adonisjs/core/services/emitter'
import type { ApiClient } from '@japa/api-client'
import { useTestKeys } from '#tests/helpers/callers'
import { clearMessaging, sendAs } from '#tests/helpers/messages'
import { MessageLedger, RETRY_WAITS_MS } from '#modules/messages/services/message_ledger'
import { MessageStateStore } from '#modules/messages/stores/message_state_store'

const AT = new Date('2026-06-01T10:00:00.000Z')
const later = (seconds: number) => new Date(AT.getTime() + seconds * 1000)
const PHONE = 7

/**
 * The messages module's one service for a message's state after it is queued, over the real
 * database: each batch operation changes what it may, guarded by the state it moves from.
 */
test.group('Message ledger (batch operations)', (group) => {
  let ledger: MessageLedger
  const states = new MessageStateStore()
  let events: ReturnType<typeof emitter.fake>

  group.setup(() => useTestKeys())
  group.each.setup(async () => {
    await clearMessaging()
    ledger = await app.container.make(MessageLedger)
    events = emitter.fake(['message.sent', 'message.delivered', 'message.failed', 'message.received', 'messages:queued'])
    return () => emitter.restore()
  })

  async function queued(client: ApiClient, count: number, extra: Record<string, unknown> = {}): Promise<number[]> {
    const to = Array.from({ length: count }, (_, index) => `+3361234567${index}`)
    const answer = await sendAs(client, { to, body: 'Ledger test', ...extra })
    answer.assertStatus(202)
    emitter.restore()
    events = emitter.fake(['message.sent', 'message.delivered', 'message.failed', 'message.received', 'messages:queued'])
    return answer.body().accepted.map((message: { id: string }) => Number(message.id))
  }
  const rowOf = (id: number) =>
    db.from('messages').where('id', id).select('status', 'attempts', 'error_code', 'hold_reason', 'held_until', 'device_id', 'sim_slot', 'ordered_at', 'body', 'encoding', 'segments').first()
  const ordered = (ids: number[], at = AT) => db.from('messages').whereIn('id', ids).update({ ordered_at: at.toISOString(), device_id: String(PHONE), sim_slot: 1 })

  test('due messages: oldest first, scheduled and held ones left for later with the time the next is due', async ({ client, assert }) => {
    const [first, second, held, scheduledLater, forced] = await queued(client, 5)
    await db.from('messages').where('id', held).update({ held_until: later(30).toISOString() })
    await db.from('messages').where('id', scheduledLater).update({ scheduled_at: later(10).toISOString() })
    await db.from('messages').where('id', forced).update({ forced_device_id: PHONE, device_id: String(PHONE) })

    const { due, nextDueAt } = await states.dueForDispatch(AT, { limit: 10, forcedOnly: false })
    assert.deepEqual(due.map((message) => message.id), [first, second, forced])
    assert.deepInclude(due[2], { forcedDeviceId: PHONE, forcedSimSlot: null, phone: '+33612345674', body: 'Ledger test' })
    assert.equal(nextDueAt?.toISOString(), later(10).toISOString())

    const forcedOnly = await states.dueForDispatch(AT, { limit: 10, forcedOnly: true })
    assert.deepEqual(forcedOnly.due.map((message) => message.id), [forced])
    assert.deepEqual((await states.dueForDispatch(AT, { limit: 1, forcedOnly: false })).due.map((message) => message.id), [first])
  })

  test("orders are stored with the text as it leaves (encoding, segments); a message that changed is not", async ({ client, assert }) => {
    const [plain, unicode, cancelled] = await queued(client, 3)
    await db.from('messages').where('id', cancelled).update({ status: 'cancelled' })
    await db.from('messages').where('id', plain).update({ hold_reason: 'sim_rate', held_until: AT.toISOString() })
    const stored = await ledger.storeOrders(
      [
        { messageId: plain, deviceId: PHONE, simSlot: 1, text: 'LEDGER TEST' },
        { messageId: unicode, deviceId: PHONE, simSlot: 0, text: 'Ledger ✓' },
        { messageId: cancelled, deviceId: PHONE, simSlot: 0, text: 'Ledger test' },
      ],
      AT
    )
    assert.deepEqual([...stored].sort(), [plain, unicode].sort())
    assert.deepInclude(await rowOf(plain), { status: 'queued', ordered_at: AT.toISOString(), device_id: String(PHONE), sim_slot: 1, body: 'LEDGER TEST', encoding: 'gsm7', segments: 1, hold_reason: null, held_until: null })
    assert.deepInclude(await rowOf(unicode), { encoding: 'ucs2', body: 'Ledger ✓' })
    assert.deepInclude(await rowOf(cancelled), { status: 'cancelled', ordered_at: null })
    // Stored once: a second pass cannot order it again.
    assert.equal((await ledger.storeOrders([{ messageId: plain, deviceId: PHONE + 1, simSlot: 0, text: 'x' }], later(1))).size, 0)
  })

  test('quota waits, holds and unsendable failures are written together; only queued messages change', async ({ client, assert }) => {
    const [quota1, quota2, hold1, hold2, unsendable, alreadySent] = await queued(client, 6)
    await db.from('messages').where('id', alreadySent).update({ status: 'sent' })

    assert.equal(await ledger.waitForQuota([quota1, quota2, alreadySent], AT), 2)
    assert.equal(await ledger.hold([{ messageId: hold1, reason: 'sim_cadence', until: later(60) }, { messageId: hold2, reason: 'sim_rate', until: later(5) }, { messageId: alreadySent, reason: 'sim_rate', until: later(5) }], AT), 2)
    assert.equal(await ledger.failUnsendable([{ messageId: unsendable, errorCode: 'DEVICE_NOT_PAIRED' }, { messageId: alreadySent, errorCode: 'SIM_NOT_FOUND' }], AT), 1)

    assert.deepInclude(await rowOf(quota1), { status: 'pending_quota_exceeded' })
    assert.deepInclude(await rowOf(hold1), { status: 'queued', hold_reason: 'sim_cadence', held_until: later(60).toISOString() })
    assert.deepInclude(await rowOf(hold2), { hold_reason: 'sim_rate', held_until: later(5).toISOString() })
    assert.deepInclude(await rowOf(unsendable), { status: 'failed', error_code: 'DEVICE_NOT_PAIRED' })
    assert.deepInclude(await rowOf(alreadySent), { status: 'sent', hold_reason: null, error_code: null })
    events.assertEmittedCount('message.failed', 1)
    events.assertEmitted('message.failed', ({ data }) => data.id === String(unsendable) && data.at.getTime() === AT.getTime())

    // Released: holds go (a retry's wait stays), quota waits go back to the queue.
    await db.from('messages').where('id', unsendable).update({ status: 'queued', held_until: later(30).toISOString(), hold_reason: null })
    assert.equal(await ledger.releaseHolds(AT), 2)
    assert.deepInclude(await rowOf(hold1), { hold_reason: null, held_until: null })
    assert.deepInclude(await rowOf(unsendable), { held_until: later(30).toISOString() })
    assert.equal(await ledger.releaseQuotaWaits(AT), 2)
    assert.deepInclude(await rowOf(quota2), { status: 'queued' })
  })

  test("a batch of failures: retried after a growing wait, failed at the last attempt or when not retryable; what changed is answered, announced on demand", async ({ client, assert }) => {
    const [retried, secondAttempt, last, unknown, stray] = await queued(client, 5)
    await ordered([retried, secondAttempt, last, unknown, stray])
    await db.from('messages').whereIn('id', [secondAttempt, last]).update({ status: 'dispatched', attempts: 1 })
    await db.from('messages').where('id', last).update({ attempts: 4 })
    await db.from('messages').where('id', retried).update({ forced_sim_slot: 1 })

    const failed = (messageId: number, extra: Record<string, unknown> = {}) => ({ kind: 'failed' as const, deviceId: PHONE, messageId, at: AT, errorCode: 'RADIO_OFF', maxAttempts: 4, retryable: true, ...extra })
    const recorded = await ledger.recordReports([
      failed(retried),
      // Repeated in the same batch: counted once.
      failed(retried, { errorCode: 'LATER' }),
      failed(secondAttempt),
      failed(last, { errorCode: 'NO_SERVICE' }),
      failed(unknown, { errorCode: 'OUTCOME_UNKNOWN', retryable: false }),
      failed(stray, { deviceId: PHONE + 1 }),
    ])
    assert.deepInclude(await rowOf(retried), { status: 'queued', attempts: 1, error_code: 'RADIO_OFF', held_until: later(RETRY_WAITS_MS[0] / 1000).toISOString(), ordered_at: null, device_id: null, sim_slot: 1 })
    assert.deepInclude(await rowOf(secondAttempt), { status: 'queued', attempts: 1, held_until: later(RETRY_WAITS_MS[0] / 1000).toISOString() })
    assert.deepInclude(await rowOf(last), { status: 'failed', attempts: 4, error_code: 'NO_SERVICE', ordered_at: null })
    assert.deepInclude(await rowOf(unknown), { status: 'failed', attempts: 1, error_code: 'OUTCOME_UNKNOWN' })
    assert.deepInclude(await rowOf(stray), { status: 'queued', ordered_at: AT.toISOString() })
    assert.sameDeepMembers(
      recorded.failedAttempts,
      [retried, secondAttempt, last, unknown].map((messageId) => ({
        messageId,
        deviceId: PHONE,
        simSlot: 1,
        orderedAt: AT.toISOString(),
        errorCode: messageId === last ? 'NO_SERVICE' : messageId === unknown ? 'OUTCOME_UNKNOWN' : 'RADIO_OFF',
      }))
    )
    assert.equal(recorded.retryAt?.toISOString(), later(RETRY_WAITS_MS[0] / 1000).toISOString())

    events.assertNotEmitted('message.failed')
    await recorded.announce()
    events.assertEmittedCount('message.failed', 2)

    // Reported again after a reconnect: nothing changes, nothing to give back.
    const again = await ledger.recordReports([failed(last), failed(unknown)])
    assert.lengthOf(again.failedAttempts, 0)
  })

  test("a phone's unaccepted orders go back to the queue (a forced one waits for its phone); taken ones fail", async ({ client, assert }) => {
    const [free, forced, recent, taken] = await queued(client, 4)
    await ordered([free, forced, taken])
    await ordered([recent], later(120))
    await db.from('messages').where('id', forced).update({ forced_device_id: PHONE })
    await db.from('messages').where('id', taken).update({ status: 'dispatched' })

    const { requeued, announce } = await ledger.requeueWaitingOrdersOf(PHONE, later(60))
    assert.sameDeepMembers(requeued, [free, forced].map((messageId) => ({ messageId, deviceId: PHONE, simSlot: 1, orderedAt: AT.toISOString() })))
    assert.deepInclude(await rowOf(free), { status: 'queued', ordered_at: null, device_id: null, sim_slot: null })
    assert.deepInclude(await rowOf(forced), { status: 'queued', ordered_at: null, device_id: String(PHONE) })
    assert.deepInclude(await rowOf(recent), { ordered_at: later(120).toISOString() })
    events.assertNotEmitted('messages:queued')
    await announce()
    events.assertEmitted('messages:queued', ({ data }) => data.count === 2)
    assert.deepEqual((await states.waitingOrdersOf(PHONE)).map((order) => order.messageId), [recent])

    assert.equal(await ledger.failTakenOrdersOf(PHONE, 'OUTCOME_UNKNOWN', AT), 1)
    assert.deepInclude(await rowOf(taken), { status: 'failed', error_code: 'OUTCOME_UNKNOWN', ordered_at: null })
    events.assertEmitted('message.failed', ({ data }) => data.id === String(taken))
  })

  test('an inbound SMS: stored once per phone reference, in its conversation, which it creates or touches', async ({ client, assert }) => {
    const sms = { deviceId: PHONE, ref: 'r1', phone: '+33699999999', body: 'Hi', simSlot: 1, receivedAt: AT, at: later(1) }
    const first = await ledger.storeInbound(sms)
    assert.isNotNull(first)
    assert.isNull(await ledger.storeInbound(sms))
    const conversation = await db.from('conversations').where('phone', sms.phone).first()
    assert.deepInclude(conversation, { id: first!.conversationId, state: 'awaiting_reply', unread_count: 1, category: 'conversation', last_message_at: later(1).toISOString() })
    assert.deepInclude(await db.from('messages').where('id', first!.id).first(), { direction: 'in', status: 'delivered', category: 'conversation', created_at: AT.toISOString(), sim_slot: 1 })
    events.assertEmittedCount('message.received', 1)
    events.assertEmitted('message.received', ({ data }) => data.id === String(first!.id) && data.conversationId === String(first!.conversationId) && data.deviceId === String(PHONE))

    // A send to the number leaves its conversation open with the send's category; the answer
    // that comes back takes it, and counts one more unread.
    await queued(client, 1, { to: sms.phone, category: 'info' })
    assert.deepInclude(await db.from('conversations').where('phone', sms.phone).first(), { state: 'open', category: 'info', unread_count: 1 })
    const reply = await ledger.storeInbound({ ...sms, ref: 'r2' })
    assert.equal(reply!.conversationId, first!.conversationId)
    assert.deepInclude(await db.from('conversations').where('phone', sms.phone).first(), { state: 'awaiting_reply', category: 'info', unread_count: 2 })
    assert.equal((await db.from('messages').where('id', reply!.id).first()).category, 'info')
    assert.equal(Number((await db.from('conversations').count('* as n').first()).n), 1)
  })

  test('pause, resume and cancel change only messages not handed to a phone yet', async ({ client, assert }) => {
    const [waiting, quotaWait, orderedOne, dispatched, sent] = await queued(client, 5)
    await db.from('messages').where('id', quotaWait).update({ status: 'pending_quota_exceeded' })
    await ordered([orderedOne, dispatched])
    await db.from('messages').where('id', dispatched).update({ status: 'dispatched' })
    await db.from('messages').where('id', sent).update({ status: 'sent' })
    const all = [waiting, quotaWait, orderedOne, dispatched, sent]
    const statuses = async () => (await db.from('messages').whereIn('id', all).orderBy('id').select('status')).map((row) => row.status)

    assert.deepEqual(await ledger.pause(all, AT), [waiting, quotaWait])
    assert.deepEqual(await statuses(), ['paused', 'paused', 'queued', 'dispatched', 'sent'])
    assert.deepEqual(await ledger.pause(all, AT), [])

    assert.deepEqual(await ledger.resume(all, later(1)), [waiting, quotaWait])
    assert.deepEqual(await statuses(), ['queued', 'queued', 'queued', 'dispatched', 'sent'])
    events.assertEmitted('messages:queued', ({ data }) => data.count === 2)

    await ledger.pause([quotaWait], later(2))
    assert.deepEqual(await ledger.cancel(all, 'CAMPAIGN_CANCELLED', later(3)), [waiting, quotaWait])
    assert.deepEqual(await statuses(), ['cancelled', 'cancelled', 'queued', 'dispatched', 'sent'])
    assert.deepInclude(await rowOf(quotaWait), { error_code: 'CAMPAIGN_CANCELLED' })
    assert.deepEqual(await ledger.resume(all, later(4)), [])
    // A cancelled message is never ordered.
    assert.equal((await ledger.storeOrders([{ messageId: waiting, deviceId: PHONE, simSlot: 0, text: 'x' }], later(5))).size, 0)
  })

  test('a retry puts failed messages back in the queue with their attempts restarted; others stay', async ({ client, assert }) => {
    const [failed, sent] = await queued(client, 2)
    await db.from('messages').where('id', failed).update({ status: 'failed', attempts: 4, error_code: 'NO_SERVICE', failed_at: AT.toISOString(), held_until: AT.toISOString() })
    await db.from('messages').where('id', sent).update({ status: 'sent' })
    assert.deepEqual(await ledger.retryFailed([failed, sent], later(1)), [failed])
    assert.deepInclude(await rowOf(failed), { status: 'queued', attempts: 0, error_code: null, held_until: null })
    assert.deepInclude(await rowOf(sent), { status: 'sent' })
    events.assertEmitted('messages:queued', ({ data }) => data.count === 1)
  })
})
