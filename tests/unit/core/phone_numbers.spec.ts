import { test } from '@japa/runner'
import { PhoneNumbers, isKnownCallingCode } from '#core/phone_numbers/phone_numbers'
import { ApiError } from '#core/http/api_error'

const numbers = new PhoneNumbers()

function refusal(run: () => unknown): ApiError {
  try {
    run()
  } catch (error) {
    if (error instanceof ApiError) return error
    throw error
  }
  throw new Error('expected INVALID_PHONE')
}

test.group('PhoneNumbers', () => {
  test('keeps E.164 and removes separators', ({ assert }) => {
    assert.equal(numbers.normalize('+33612345678', null), '+33612345678')
    assert.equal(numbers.normalize(' +33 6 12 34 56 78 ', null), '+33612345678')
    assert.equal(numbers.normalize('+1 (415) 555-2671', null), '+14155552671')
  })

  test('completes a local dialled number with the local prefix, dropping the trunk 0', ({ assert }) => {
    assert.equal(numbers.normalize('06 12 34 56 78', '+33'), '+33612345678')
    assert.equal(numbers.normalize('07911 123456', '+44'), '+447911123456')
    assert.equal(numbers.normalize('0033612345678', '+33'), '+33612345678')
  })

  test('a local number without a local prefix setting is INVALID_PHONE', ({ assert }) => {
    const error = refusal(() => numbers.normalize('0612345678', null))
    assert.equal(error.code, 'INVALID_PHONE')
    assert.equal(error.status, 400)
    assert.include(error.message, 'Settings > Reception')
  })

  test('garbage is INVALID_PHONE, naming the position and never the number', ({ assert }) => {
    for (const bad of ['+33', 'hello', '+33 6 12 34 56 78 9999999', '++33612345678', '+33612a45678', '', 42]) {
      const error = refusal(() => numbers.normalize(bad, '+33', 3))
      assert.equal(error.code, 'INVALID_PHONE')
      assert.deepInclude(error.details as object, { position: 3 })
      assert.notInclude(JSON.stringify({ message: error.message, details: error.details }), '612')
    }
  })

  test('knows country calling codes', ({ assert }) => {
    assert.isTrue(isKnownCallingCode('+33'))
    assert.isTrue(isKnownCallingCode('+1'))
    assert.isFalse(isKnownCallingCode('+999'))
    assert.isFalse(isKnownCallingCode('33'))
  })
})
