import { test } from '@japa/runner'
import { maskPhone, redactText } from '#core/logging/redaction'

test.group('Log redaction', () => {
  test('masks phone numbers in free text, keeping only the ends', ({ assert }) => {
    const line = redactText('POST /api/v1/contacts/+33612345678 from 06 12 34 56 78')
    assert.notInclude(line, '612345678')
    assert.notInclude(line, '12 34 56')
    assert.include(line, maskPhone('+33612345678'))
    assert.equal(maskPhone('+33612345678'), '+33•••••••78')
  })

  test('censors secret-looking query values', ({ assert }) => {
    const line = redactText('GET /api/v1/messages?api_key=sk_live_abcdef&limit=5&token=xyz')
    assert.notInclude(line, 'sk_live_abcdef')
    assert.notInclude(line, 'xyz')
    assert.include(line, 'limit=5')
  })

  test('leaves ids, times and small numbers alone', ({ assert }) => {
    const text = 'request 3f2a9c1e-1234-4abc-9def-0123456789ab took 12.5 ms at 2026-05-04T09:30:00.000Z status 200'
    assert.equal(redactText(text), text)
  })
})
