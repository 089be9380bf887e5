import { test } from '@japa/runner'
import { appMessage, failureCode, orderSteps, sseEvent } from '#modules/smsgate/channel/app_protocol'

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
    const handedAt = Date.UTC(2026, 7, 1, 11, 0, 0, 7)
    assert.deepEqual(appMessage({ messageId: 981, to: '+33612345678', text: 'Hi', simSlot: 1 }, handedAt), {
      id: '981',
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
})
