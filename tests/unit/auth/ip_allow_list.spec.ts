import { test } from '@japa/runner'
import { isAddressAllowed, normaliseAllowedEntry, parseAllowedEntry } from '#modules/auth/services/ip_allow_list'

test.group('IP allow-list', () => {
  test('single addresses and CIDR ranges, IPv4 and IPv6', ({ assert }) => {
    const entries = ['203.0.113.7', '10.0.0.0/8', '2001:db8::/32', '::1']
    assert.isTrue(isAddressAllowed('203.0.113.7', entries))
    assert.isFalse(isAddressAllowed('203.0.113.8', entries))
    assert.isTrue(isAddressAllowed('10.200.3.4', entries))
    assert.isFalse(isAddressAllowed('11.0.0.1', entries))
    assert.isTrue(isAddressAllowed('2001:db8:1234::5', entries))
    assert.isFalse(isAddressAllowed('2001:db9::5', entries))
    assert.isTrue(isAddressAllowed('::1', entries))
  })

  test('an IPv4 caller seen through a dual-stack socket (::ffff:a.b.c.d) is judged as IPv4', ({ assert }) => {
    assert.isTrue(isAddressAllowed('::ffff:10.1.2.3', ['10.0.0.0/8']))
    assert.isFalse(isAddressAllowed('::ffff:192.168.1.1', ['10.0.0.0/8']))
    assert.isTrue(isAddressAllowed('10.1.2.3', ['::ffff:10.0.0.0/104']))
  })

  test('refuses what is not an address or range, and never matches garbage callers', ({ assert }) => {
    for (const bad of ['10.0.0.0/33', 'example.com', '300.1.1.1', '10.0.0.0/', '', '2001:db8::/129']) {
      assert.isNull(parseAllowedEntry(bad), bad)
    }
    assert.isFalse(isAddressAllowed('not-an-ip', ['0.0.0.0/0']))
  })

  test('entries are shown back normalised', ({ assert }) => {
    assert.equal(normaliseAllowedEntry(' 10.0.0.0/8 '), '10.0.0.0/8')
    assert.equal(normaliseAllowedEntry('2001:0db8:0000::/32'), '2001:db8::/32')
    assert.equal(normaliseAllowedEntry('203.0.113.7'), '203.0.113.7')
  })
})
