import { test } from '@japa/runner'
import { randomBytes } from 'node:crypto'
import { Secrets, MUST_BE_SET_AGAIN } from '#core/secrets/secrets'

test.group('Secrets', () => {
  test('seals to a versioned AES-256-GCM value and reveals it again', ({ assert }) => {
    const secrets = new Secrets(randomBytes(32))
    const sealed = secrets.seal('whsec_0123456789abcdef')
    assert.match(sealed, /^v1\.[\w-]+\.[\w-]+\.[\w-]+$/)
    assert.notInclude(sealed, 'whsec_0123456789abcdef')
    assert.deepEqual(secrets.reveal(sealed), { readable: true, value: 'whsec_0123456789abcdef' })
  })

  test('two seals of the same value differ (fresh IV each time)', ({ assert }) => {
    const secrets = new Secrets(randomBytes(32))
    assert.notEqual(secrets.seal('same'), secrets.seal('same'))
  })

  test('a value sealed under another master key must be set again, without throwing', ({ assert }) => {
    const sealed = new Secrets(randomBytes(32)).seal('device-credential')
    const revealed = new Secrets(randomBytes(32)).reveal(sealed)
    assert.deepEqual(revealed, { readable: false, reason: MUST_BE_SET_AGAIN })
  })

  test('a tampered or malformed value must be set again, without throwing', ({ assert }) => {
    const secrets = new Secrets(randomBytes(32))
    const [version, iv, tag, body] = secrets.seal('license-key').split('.')
    const flipped = Buffer.from(body, 'base64url')
    flipped[0] ^= 1
    assert.isFalse(secrets.reveal([version, iv, tag, flipped.toString('base64url')].join('.')).readable)
    assert.isFalse(secrets.reveal('not a sealed value').readable)
    assert.isFalse(secrets.reveal('v2.a.b.c').readable)
    assert.isFalse(secrets.reveal('v1.%%%.b.c').readable)
  })

  test('refuses a key that is not 32 bytes', ({ assert }) => {
    assert.throws(() => new Secrets(randomBytes(16)), /32 bytes/)
  })
})
