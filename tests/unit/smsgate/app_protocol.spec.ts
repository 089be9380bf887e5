import { test } from '@japa/runner'
import { createHmac } from 'node:crypto'
import {
  APP_WEBHOOK_EVENTS,
  WEBHOOK_EVENTS,
  appMessage,
  appMessageId,
  checkSignature,
  failureCode,
  orderSteps,
  parseAppMessageId,
  receivedSmsRef,
  sseEvent,
} from '#modules/smsgate/channel/app_protocol'

/** The SMSGate app's words, as the gateway reads and writes them (docs/smsgate.md). */
test.group('SMSGate app protocol', () => {
  test('the app’s failure reasons become short codes', ({ assert }) => {
    const cases: Array<[string | undefined, string]> = [
      ['Send result: RESULT_ERROR_NO_SERVICE (Failed because service is currently unavailable)', 'NO_SIGNAL'],
      ['Send result: RESULT_ERROR_RADIO_OFF (Failed because radio was explicitly turned off)', 'RADIO_OFF'],
      ['Send result: RESULT_ERROR_GENERIC_FAILURE (Generic failure cause)', 'GENERIC_FAILURE'],
      ['Send result: RESULT_NETWORK_REJECT (…)', 'NETWORK_REJECT'],
      ['Delivery result from SC +33609001390: 64', 'DELIVERY_FAILED'],
      ['Delivery result: 1', 'DELIVERY_FAILED'],
      ['TTL expired', 'TTL_EXPIRED'],
      ['SIM 2 not found', 'SIM_NOT_FOUND'],
      ['sendSMS: SecurityException', 'SEND_ERROR'],
      ["Can't send message: no SIM", 'SEND_ERROR'],
      ['Unknown', 'GENERIC_FAILURE'],
      [undefined, 'GENERIC_FAILURE'],
    ]
    for (const [reason, code] of cases) assert.equal(failureCode(reason), code, String(reason))
  })

  test('each state names the steps up to it; an unknown state names none', ({ assert }) => {
    assert.deepEqual(orderSteps('Pending', undefined), [{ kind: 'accepted' }])
    assert.deepEqual(orderSteps('Processed', undefined), [{ kind: 'accepted' }])
    assert.deepEqual(orderSteps('Sent', undefined), [{ kind: 'accepted' }, { kind: 'sent' }])
    assert.deepEqual(orderSteps('Delivered', undefined), [{ kind: 'accepted' }, { kind: 'sent' }, { kind: 'delivered' }])
    assert.deepEqual(orderSteps('Failed', 'TTL expired'), [{ kind: 'failed', errorCode: 'TTL_EXPIRED' }])
    assert.deepEqual(orderSteps('Cancelling', undefined), [])
  })

  test('an order in the app’s message format; an event with its event: and data: lines', ({ assert }) => {
    const orderedAt = new Date(Date.UTC(2026, 7, 1, 11, 0, 0, 7))
    assert.deepEqual(appMessage({ messageId: 981, to: '+33612345678', text: 'Hi', simSlot: 1, orderedAt }), {
      id: `981-${orderedAt.getTime().toString(36)}`,
      message: 'Hi',
      textMessage: { text: 'Hi' },
      phoneNumbers: ['+33612345678'],
      simNumber: 2,
      withDeliveryReport: true,
      state: 'Pending',
      createdAt: '2026-08-01T11:00:00.007Z',
    })
    assert.equal(sseEvent('MessageEnqueued'), 'event: MessageEnqueued\ndata: null\n\n')
    assert.equal(sseEvent('MessageCancelled', { messageId: '981' }), 'event: MessageCancelled\ndata: {"messageId":"981"}\n\n')
  })

  test('an order’s id names its hand-out: another hand-out, another id; a report’s id read back', ({ assert }) => {
    const first = new Date(Date.UTC(2026, 7, 1, 11, 0, 0, 7))
    const retry = new Date(first.getTime() + 30_000)
    const id = appMessageId({ messageId: 981, orderedAt: first })
    assert.match(id, /^[A-Za-z0-9_-]{1,36}$/)
    assert.notEqual(appMessageId({ messageId: 981, orderedAt: retry }), id)
    assert.deepEqual(parseAppMessageId(id), { messageId: 981, orderedAt: first })
    assert.deepEqual(parseAppMessageId(appMessageId({ messageId: 9_007_199_254_740_991, orderedAt: retry })), { messageId: 9_007_199_254_740_991, orderedAt: retry })
    // A bare message id (before ids named the hand-out) names the current one.
    assert.deepEqual(parseAppMessageId('981'), { messageId: 981 })
    for (const foreign of ['', '0', '0981', 'abc', '981-', '981-ABC', '981-x-y', 'PyDmBQZZXYmyxMwED8Fzy', '12345678901234567']) {
      assert.isNull(parseAppMessageId(foreign), foreign)
    }
  })

  test('a webhook signature is the hex HMAC-SHA256 of the raw bytes then the timestamp, within 5 minutes', ({ assert }) => {
    const body = Buffer.from('{"event":"sms:received","payload":{"message":"a \\u003d b é"}}', 'utf8')
    const now = 1_780_000_000_000
    const timestamp = String(now / 1000 - 10)
    const sign = (key: string, bytes: Buffer, at: string) => createHmac('sha256', key).update(bytes).update(at).digest('hex')
    const signature = sign('k3y', body, timestamp)
    assert.equal(checkSignature('k3y', body, { timestamp, signature }, now), 'valid')
    assert.equal(checkSignature('k3y', body, { timestamp, signature: signature.toUpperCase() }, now), 'valid')
    assert.equal(checkSignature('other', body, { timestamp, signature }, now), 'wrong')
    // The same JSON re-serialised (the escape undone) is other bytes.
    const reserialised = Buffer.from(JSON.stringify(JSON.parse(body.toString('utf8'))), 'utf8')
    assert.equal(checkSignature('k3y', reserialised, { timestamp, signature }, now), 'wrong')
    assert.equal(checkSignature('k3y', body, { timestamp, signature: undefined }, now), 'unsigned')
    assert.equal(checkSignature('k3y', body, { timestamp: undefined, signature }, now), 'unsigned')
    assert.equal(checkSignature('k3y', body, { timestamp: 'soon', signature }, now), 'stale')
    const old = String(now / 1000 - 301)
    assert.equal(checkSignature('k3y', body, { timestamp: old, signature: sign('k3y', body, old) }, now), 'stale')
    const edge = String(now / 1000 + 300)
    assert.equal(checkSignature('k3y', body, { timestamp: edge, signature: sign('k3y', body, edge) }, now), 'valid')
  })

  test('a received SMS’s reference: the same SMS again is the same, any difference another', ({ assert }) => {
    const sms = { message: 'Hello', receivedAt: '2026-08-01T18:00:00.000+07:00', sender: '+33612345678', simNumber: 1 }
    const ref = receivedSmsRef(sms)
    assert.match(ref, /^sms:[A-Za-z0-9_-]{32}$/)
    // The same instant in another offset is the same SMS.
    assert.equal(receivedSmsRef({ ...sms, receivedAt: '2026-08-01T11:00:00.000Z' }), ref)
    for (const change of [{ message: 'Hello!' }, { receivedAt: '2026-08-01T18:00:01.000+07:00' }, { sender: '+33612345679' }, { simNumber: 2 }]) {
      assert.notEqual(receivedSmsRef({ ...sms, ...change }), ref, JSON.stringify(change))
    }
  })

  test('the webhooks registered are events the app knows', ({ assert }) => {
    assert.includeMembers([...APP_WEBHOOK_EVENTS], [...WEBHOOK_EVENTS])
    assert.notInclude([...WEBHOOK_EVENTS], 'sms:sent')
  })
})
