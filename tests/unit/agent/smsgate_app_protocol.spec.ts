import { test } from '@japa/runner'
import { checkSignature } from '#modules/smsgate/channel/app_protocol'
import { appDate, gsonJson, reconnectDelayMs, redact, webhookSignature, webhookRetryDelayMs } from '../../../agent/src/smsgate/app_protocol.js'
import { apiUrlOf } from '../../../agent/src/smsgate/run_smsgate_phone.js'

/** The simulated SMSGate app's wire details (docs/smsgate-app-protocol.md), checked one by one. */
test.group('SMSGate app protocol (the simulated app side)', () => {
  test('the event stream is opened again after 5 s five times, 30 s five times, then 60 s', ({ assert }) => {
    assert.deepEqual(
      Array.from({ length: 12 }, (_, index) => reconnectDelayMs(index + 1) / 1000),
      [5, 5, 5, 5, 5, 30, 30, 30, 30, 30, 60, 60]
    )
    assert.deepEqual([1, 2, 3, 4].map(webhookRetryDelayMs), [5_000, 10_000, 20_000, 40_000])
  })

  test('a webhook it signs passes the gateway’s check, on the Gson bytes; another key does not', ({ assert }) => {
    const body = gsonJson({ event: 'sms:received', payload: { message: 'a = b <c> & d' } })
    assert.include(body, '\\u003d')
    const timestamp = '1785600000'
    const signature = webhookSignature('k3y', body, timestamp)
    assert.match(signature, /^[0-9a-f]{64}$/)
    assert.equal(checkSignature('k3y', Buffer.from(body), { timestamp, signature }, 1785600000_000), 'valid')
    assert.equal(checkSignature('other', Buffer.from(body), { timestamp, signature }, 1785600000_000), 'wrong')
  })

  test('dates carry 3 fractional digits and the phone’s offset; SIM details are masked as the app masks them', ({ assert }) => {
    assert.equal(appDate(Date.UTC(2026, 7, 1, 11, 0, 0, 120)), '2026-08-01T18:00:00.120+07:00')
    assert.equal(appDate(Date.UTC(2026, 7, 1, 11, 0, 0), -150), '2026-08-01T08:30:00.000-02:30')
    assert.equal(redact('Simulated'), '*****ated')
    assert.equal(redact('Free'), '****')
  })

  test('the API URL: the gateway address completed, or the apiUrl of the code taken as it is', ({ assert }) => {
    assert.equal(apiUrlOf('http://127.0.0.1:3000/'), 'http://127.0.0.1:3000/api/mobile/v1')
    assert.equal(apiUrlOf('https://sms.example.com/api/mobile/v1'), 'https://sms.example.com/api/mobile/v1')
  })
})
