import { test } from '@japa/runner'
import User from '#modules/auth/models/user'
import ApiKey from '#modules/auth/models/api_key'

const user = {
  id: 3,
  email: 'ana@example.org',
  name: 'Ana',
  role: 'operator',
  password: '$scrypt$not-a-real-hash',
  created_at: '2026-11-25T08:00:00.123Z',
  updated_at: '2026-11-25T09:00:00.000Z',
}
const apiKey = {
  id: 5,
  name: 'CRM',
  name_key: 'crm',
  scope: 'send',
  fingerprint: 'f'.repeat(64),
  last_four: 'abcd',
  allowed_ips: '["10.0.0.0/8"]',
  calls_per_minute: 60,
  calls_per_day: null,
  created_at: '2026-11-25T08:00:00.123Z',
  updated_at: '2026-11-25T09:00:00.000Z',
  last_used_at: '2026-11-25T09:01:00.000Z',
}

test.group('Account and API key resources', () => {
  test('User.toResource answers what the model serialises, in the same order, without the password', ({ assert }) => {
    const model = User.$createFromAdapterResult(user)!
    assert.equal(JSON.stringify(model.toResource()), JSON.stringify(model.serialize()))
    assert.notProperty(model.toResource(), 'password')
  })

  test('ApiKey.toResource answers what the model serialises, in the same order, last use set or not, without the fingerprint', ({ assert }) => {
    for (const row of [apiKey, { ...apiKey, last_used_at: null, allowed_ips: '[]', calls_per_day: 1000 }]) {
      const model = ApiKey.$createFromAdapterResult(row)!
      assert.equal(JSON.stringify(model.toResource()), JSON.stringify(model.serialize()))
      assert.notProperty(model.toResource(), 'fingerprint')
    }
  })
})
