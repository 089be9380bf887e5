import { test } from '@japa/runner'
import { DestinationPolicy, kernelLocalAddresses } from '#modules/webhooks/services/destination_policy'

/** Judged on ranges alone: this machine's interfaces (which vary) are not in the way. */
const loopbackOnly = () => ['127.0.0.1', '::1']
const defaults = new DestinationPolicy({ allowPrivateNetworks: true, ownAddresses: loopbackOnly })
const noPrivate = new DestinationPolicy({ allowPrivateNetworks: false, ownAddresses: loopbackOnly })

/**
 * The rules of docs/webhooks.md (Destinations), as URL hosts an operator could type: each is read
 * the way the HTTP client reads it (`new URL().hostname`, then the policy). `private` means
 * allowed by default and refused with GATEWAY_WEBHOOKS_ALLOW_PRIVATE_NETWORKS=false.
 */
const table: Array<[host: string, expected: 'allowed' | 'never' | 'private' | 'resolve']> = [
  // The machine itself, in every notation new URL() accepts.
  ['127.0.0.1', 'never'],
  ['127.8.9.10', 'never'],
  ['2130706433', 'never'],
  ['0x7f000001', 'never'],
  ['0x7f.1', 'never'],
  ['017700000001', 'never'],
  ['0177.0.0.1', 'never'],
  ['127.1', 'never'],
  ['127.0.1', 'never'],
  ['localhost', 'never'],
  ['LOCALHOST', 'never'],
  ['localhost.', 'never'],
  ['api.localhost', 'never'],
  ['[::1]', 'never'],
  ['[0:0:0:0:0:0:0:1]', 'never'],
  ['[::ffff:127.0.0.1]', 'never'],
  ['[::ffff:7f00:1]', 'never'],
  ['[64:ff9b::127.0.0.1]', 'never'],
  ['[64:ff9b::7f00:1]', 'never'],
  ['[2002:7f00:1::]', 'never'],
  ['[::127.0.0.1]', 'never'],
  // Unspecified.
  ['0.0.0.0', 'never'],
  ['0', 'never'],
  ['[::]', 'never'],
  ['[::ffff:0.0.0.0]', 'never'],
  // Link-local and cloud metadata.
  ['169.254.169.254', 'never'],
  ['169.254.0.1', 'never'],
  ['2852039166', 'never'],
  ['0xa9.0xfe.0xa9.0xfe', 'never'],
  ['[::ffff:169.254.169.254]', 'never'],
  ['[64:ff9b::a9fe:a9fe]', 'never'],
  ['[fe80::1]', 'never'],
  ['[fd00:ec2::254]', 'never'],
  ['100.100.100.200', 'never'],
  ['168.63.129.16', 'never'],
  ['2822734096', 'never'],
  ['192.0.0.192', 'never'],
  ['[::ffff:100.100.100.200]', 'never'],
  ['[64:ff9b::a83f:8110]', 'never'],
  ['[2002:c000:c0::]', 'never'],
  // Neither public nor private: multicast, broadcast, reserved.
  ['224.0.0.1', 'never'],
  ['255.255.255.255', 'never'],
  ['240.0.0.1', 'never'],
  ['[ff02::1]', 'never'],
  // Private ranges: allowed unless switched off.
  ['10.0.0.1', 'private'],
  ['10.255.255.254', 'private'],
  ['167772161', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.1', 'private'],
  ['192.168.1.20', 'private'],
  ['100.64.0.1', 'private'],
  ['100.127.255.254', 'private'],
  ['[fc00::1]', 'private'],
  ['[fd12:3456::1]', 'private'],
  ['[::ffff:10.0.0.1]', 'private'],
  ['[::ffff:192.168.0.1]', 'private'],
  // Public addresses.
  ['8.8.8.8', 'allowed'],
  ['1.1.1.1', 'allowed'],
  ['172.32.0.1', 'allowed'],
  ['172.15.255.255', 'allowed'],
  ['100.128.0.1', 'allowed'],
  ['134744072', 'allowed'],
  ['[2001:4860:4860::8888]', 'allowed'],
  ['[::ffff:8.8.8.8]', 'allowed'],
  ['[64:ff9b::808:808]', 'allowed'],
  // Names are judged on what they resolve to, at every attempt.
  ['hooks.example.com', 'resolve'],
  ['127.0.0.1.nip.io', 'resolve'],
]

test.group('Destination policy', () => {
  test('{0} is {1}')
    .with(table)
    .run(({ assert }, [host, expected]) => {
      const hostname = new URL(`http://${host}/hook`).hostname
      const withDefaults = defaults.judgeHost(hostname)
      const withoutPrivate = noPrivate.judgeHost(hostname)
      if (expected === 'resolve') {
        assert.equal(withDefaults, 'resolve')
        return
      }
      assert.notEqual(withDefaults, 'resolve', `${host} should be judged without a lookup`)
      const allowedByDefault = withDefaults !== 'resolve' && withDefaults.allowed
      const allowedWithoutPrivate = withoutPrivate !== 'resolve' && withoutPrivate.allowed
      assert.equal(allowedByDefault, expected === 'allowed' || expected === 'private', `${host} by default`)
      assert.equal(allowedWithoutPrivate, expected === 'allowed', `${host} with private networks forbidden`)
    })

  test('a resolved address is judged the same way: {0}')
    .with([
      ['127.0.0.1', false],
      ['::1', false],
      ['::ffff:127.0.0.1', false],
      ['169.254.169.254', false],
      ['100.100.100.200', false],
      ['168.63.129.16', false],
      ['192.0.0.192', false],
      ['::ffff:168.63.129.16', false],
      ['fe80::1%eth0', false],
      ['10.1.2.3', true],
      ['93.184.216.34', true],
      ['2606:2800:220:1:248:1893:25c8:1946', true],
    ] as Array<[string, boolean]>)
    .run(({ assert }, [address, allowed]) => {
      assert.equal(defaults.judgeAddress(address).allowed, allowed)
    })

  test("the machine's own addresses are the machine itself in every notation, read at each judgement", ({ assert }) => {
    let own = ['127.0.0.1', '::1', '192.168.1.20', '93.184.216.34', 'fd00::2', 'fe80::1%eth0']
    const policy = new DestinationPolicy({ allowPrivateNetworks: true, ownAddresses: () => own })
    for (const host of ['192.168.1.20', '3232235796', '[::ffff:192.168.1.20]', '[::ffff:c0a8:114]', '93.184.216.34', '[fd00::2]', '[fd00:0:0:0:0:0:0:2]']) {
      const verdict = policy.judgeHost(new URL(`http://${host}/hook`).hostname)
      assert.deepEqual(verdict, { allowed: false, reason: 'the machine itself' }, host)
    }
    assert.deepEqual(policy.judgeAddress('fd00::2'), { allowed: false, reason: 'the machine itself' })
    // Its neighbours on the same networks are not the machine.
    assert.isTrue(policy.judgeAddress('192.168.1.21').allowed)
    assert.isTrue(policy.judgeAddress('fd00::3').allowed)
    // An address the machine loses is allowed again; one it gains is refused from then on.
    own = ['127.0.0.1', '::1', '192.168.1.21']
    assert.isTrue(policy.judgeAddress('192.168.1.20').allowed)
    assert.isFalse(policy.judgeAddress('192.168.1.21').allowed)
  })
})

test.group("Destination policy: the kernel's own addresses", () => {
  const fibTrie = [
    'Main:',
    '  +-- 0.0.0.0/0 3 0 5',
    '     |-- 0.0.0.0',
    '        /0 universe UNICAST',
    '     +-- 172.17.0.0/24 2 0 2',
    '        |-- 172.17.0.0',
    '           /24 link UNICAST',
    '        |-- 172.17.0.2',
    '           /32 host LOCAL',
    '        |-- 172.17.0.255',
    '           /32 link BROADCAST',
    'Local:',
    '  +-- 10.213.0.0/24 2 0 2',
    '     |-- 10.213.0.77',
    '        /32 host LOCAL',
    '     |-- 127.0.0.0',
    '        /8 host LOCAL',
  ].join('\n')
  const ifInet6 = ['00000000000000000000000000000001 01 80 10 80       lo', 'fd000000000000000000000000000002 04 40 00 82     eth0'].join('\n')
  const proc = (files: Record<string, string>) => (path: string) => files[path] ?? null

  test('host entries of the local table and every assigned IPv6 address, nothing else', ({ assert }) => {
    const found = kernelLocalAddresses(proc({ '/proc/net/fib_trie': fibTrie, '/proc/net/if_inet6': ifInet6 }))
    assert.sameMembers([...new Set(found)], ['172.17.0.2', '10.213.0.77', '0000:0000:0000:0000:0000:0000:0000:0001', 'fd00:0000:0000:0000:0000:0000:0000:0002'])
  })

  test('without /proc (another system) none: the interfaces Node lists are all there is', ({ assert }) => {
    assert.deepEqual(kernelLocalAddresses(proc({})), [])
  })

  test('an address found only there is the machine itself, in any spelling', ({ assert }) => {
    const policy = new DestinationPolicy({ allowPrivateNetworks: true, ownAddresses: () => kernelLocalAddresses(proc({ '/proc/net/fib_trie': fibTrie, '/proc/net/if_inet6': ifInet6 })) })
    assert.deepEqual(policy.judgeAddress('10.213.0.77'), { allowed: false, reason: 'the machine itself' })
    assert.deepEqual(policy.judgeAddress('fd00::2'), { allowed: false, reason: 'the machine itself' })
    assert.deepEqual(policy.judgeAddress('10.213.0.78'), { allowed: true })
    assert.deepEqual(policy.judgeAddress('172.17.0.255'), { allowed: true })
  })
})
