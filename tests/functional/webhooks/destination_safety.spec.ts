import { test } from '@japa/runner'
import dns from 'node:dns'
import http from 'node:http'
import { spawnSync } from 'node:child_process'
import type { AddressInfo } from 'node:net'
import { networkInterfaces } from 'node:os'
import app from '@adonisjs/core/services/app'
import emitter from '@adonisjs/core/services/emitter'
import { useManualClock } from '#tests/helpers/clock'
import { testKeys, useTestKeys } from '#tests/helpers/callers'
import { clearWebhooks, deliveries, startReceiver, useWebhookEngine, type Receiver } from '#tests/helpers/webhooks'
import { DestinationPolicy, machineAddresses } from '#modules/webhooks/services/destination_policy'
import { RuleCalls } from '#modules/webhooks/services/rule_calls'
import type { ManualClock } from '#core/time/clock'

/** A name table in place of DNS: the name a webhook was saved with later resolves to loopback. */
function resolverOf(table: Record<string, string>): typeof dns.lookup {
  return ((hostname: string, options: any, callback: any) => {
    const address = table[hostname]
    if (!address) return dns.lookup(hostname, options, callback)
    const family = address.includes(':') ? 6 : 4
    if (options.all) return callback(null, [{ address, family }])
    return callback(null, address, family)
  }) as typeof dns.lookup
}

test.group('Webhook destination safety with the real policy', (group) => {
  let clock: ManualClock
  let engine: Awaited<ReturnType<typeof useWebhookEngine>>
  let target: Receiver

  group.setup(() => useTestKeys())
  group.each.setup(async () => {
    await clearWebhooks()
    const manual = useManualClock('2026-05-01T10:00:00.000Z')
    clock = manual.clock
    // The policy the gateway runs with; only the name table is the test's.
    engine = await useWebhookEngine(clock, {
      policy: new DestinationPolicy({ allowPrivateNetworks: true }),
      resolve: resolverOf({ 'hooks.example.test': '127.0.0.1', 'v6.example.test': '::ffff:127.0.0.1' }),
    })
    target = await startReceiver()
    return async () => {
      await engine.stop()
      await target.close()
      manual.restore()
    }
  })

  test('a name that resolves to the machine itself is caught at connect time: {$self}')
    .with(['hooks.example.test', 'v6.example.test'])
    .run(async ({ client, assert }, host) => {
      // Saved fine: a name is judged on what it resolves to when a call leaves.
      const created = await client.post('/api/v1/webhooks').header('x-api-key', testKeys.admin).json({
        name: `Resolves to loopback ${host}`,
        url: `http://${host}:${target.port}/hook`,
        events: ['device.online'],
      })
      created.assertStatus(201)
      await emitter.emit('device.online', { id: '4', deviceId: '4', status: 'online', at: clock.now() })
      await engine.settle()
      assert.lengthOf(target.calls, 0, 'nothing reached the loopback receiver')
      const [entry] = await deliveries(client)
      assert.containsSubset(entry, { status: 'pending', attempts: 1, httpStatus: null, detail: 'destination address is not allowed' })
    })

  test('a literal loopback address is refused at every attempt, before any connection', async ({ client, assert }) => {
    // A rule's URL is not checked when saved by this module: the attempt refuses it.
    await (await app.container.make(RuleCalls)).call({
      ruleId: '1',
      ruleName: 'Loopback rule',
      url: target.url,
      secret: 'rule-secret-0123456789',
      conversationId: '1',
      senderPhone: '+33612345678',
      occurredOn: clock.now(),
    })
    await engine.settle()
    assert.lengthOf(target.calls, 0)
    const [entry] = await deliveries(client)
    assert.containsSubset(entry, { status: 'pending', attempts: 1, error: 'destination address is not allowed' })
  })
})

/**
 * A receiver listening on every address, like a gateway started with HOST=0.0.0.0: whatever
 * address of this machine a call goes to, it gets there.
 */
async function startEveryAddressReceiver() {
  let calls = 0
  const server = http.createServer((_request, response) => {
    calls++
    response.end('ok')
  })
  await new Promise<void>((resolve) => server.listen(0, '0.0.0.0', resolve))
  return {
    port: (server.address() as AddressInfo).port,
    get calls() {
      return calls
    },
    close() {
      server.closeAllConnections()
      return new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

/** The veth pairs this suite makes are named so, with the process id: another run's are told apart. */
const TEST_LINK_PREFIX = 'gwt'
const testLinkName = (suffix: string) => `${TEST_LINK_PREFIX}${suffix}${process.pid % 100_000}`

/**
 * Resolves once this machine lists `address` among its own, as the policy reads them
 * (`machineAddresses`: Node's interface list and the kernel's local table). The kernel does its
 * part of `ip link set up` on its own work queue after the command has returned: judged before
 * then, the new address is not yet the machine's own.
 */
async function listedByTheMachine(address: string, name: string) {
  const deadline = Date.now() + 10_000
  while (!machineAddresses().includes(address)) {
    if (Date.now() > deadline) {
      const state = spawnSync('ip', ['-o', 'link', 'show', name], { encoding: 'utf8' }).stdout.trim()
      throw new Error(`${address} was never listed among the machine's addresses (${state})`)
    }
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

/**
 * An address of this machine on an interface that is not loopback, in a private range the
 * policy would otherwise allow: a veth pair created for the test (root and `ip` needed), with
 * an address of 10.213/16 of its own, removed afterwards. Resolves once the machine lists it.
 * Without `carrier` the pair's other end stays down: the interface is up with no carrier, as
 * with a cable out, and Node's interface list leaves it out.
 */
async function addInterfaceAddress({ carrier = true } = {}) {
  const name = testLinkName('')
  const address = `10.213.${(process.pid >> 8) & 0xff}.${(process.pid & 0xff) || 1}`
  const ip = (...args: string[]) => {
    const result = spawnSync('ip', args, { encoding: 'utf8' })
    if (result.status !== 0) throw new Error(`ip ${args.join(' ')}: ${result.stderr || result.error}`)
  }
  spawnSync('ip', ['link', 'del', name])
  ip('link', 'add', name, 'type', 'veth', 'peer', 'name', `${name}p`)
  const remove = () => void spawnSync('ip', ['link', 'del', name])
  try {
    ip('addr', 'add', `${address}/32`, 'dev', name)
    ip('link', 'set', name, 'up')
    if (carrier) ip('link', 'set', `${name}p`, 'up')
    await listedByTheMachine(address, name)
  } catch (error) {
    remove()
    throw error
  }
  return { address, remove }
}

/**
 * Whether this machine lets the test add an interface address: tried for real (root, iproute2
 * and the right to make a veth pair, which a container may withhold), not guessed. The probe's
 * name is this process's own: two runs probing at once must not take each other's.
 */
function mayAddInterface(): boolean {
  if (process.getuid?.() !== 0) return false
  const probe = testLinkName('probe')
  const made = spawnSync('ip', ['link', 'add', probe, 'type', 'veth', 'peer', 'name', `${probe}p`]).status === 0
  if (made) spawnSync('ip', ['link', 'del', probe])
  return made
}
const canAddInterface = mayAddInterface()

/**
 * The addresses this machine has now on interfaces other than loopback, less the ones another
 * run of this suite made for itself (it removes them whenever its test ends).
 */
const interfaceAddresses = Object.entries(networkInterfaces())
  .filter(([name]) => !name.startsWith(TEST_LINK_PREFIX))
  .flatMap(([, entries]) => entries ?? [])
  .filter((entry) => !entry.internal)
  .map((entry) => entry.address.replace(/%.*$/, ''))

const urlOf = (address: string, port = 8080) => `http://${address.includes(':') ? `[${address}]` : address}:${port}/hook`

test.group("Webhook destination safety: the machine's own addresses and cloud metadata", (group) => {
  let clock: ManualClock
  let engine: Awaited<ReturnType<typeof useWebhookEngine>>
  const names: Record<string, string> = {}
  const save = (client: any, name: string, url: string) =>
    client.post('/api/v1/webhooks').header('x-api-key', testKeys.admin).json({ name, url, events: ['device.online'] })

  group.setup(() => useTestKeys())
  group.each.setup(async () => {
    await clearWebhooks()
    const manual = useManualClock('2026-05-01T10:00:00.000Z')
    clock = manual.clock
    // The policy the gateway runs with, made before the test adds an address; only the name
    // table is the test's (filled by the test once it knows the address).
    engine = await useWebhookEngine(clock, {
      policy: new DestinationPolicy({ allowPrivateNetworks: true }),
      resolve: ((hostname: string, options: any, callback: any) => resolverOf(names)(hostname, options, callback)) as typeof dns.lookup,
    })
    return async () => {
      await engine.stop()
      manual.restore()
    }
  })

  test('an address added to an interface while the gateway runs is refused when saved and when a name resolves to it', async ({ client, assert }) => {
    const receiver = await startEveryAddressReceiver()
    const added = await addInterfaceAddress()
    try {
      // The address does reach this machine's receiver: what the policy must stop.
      const probe = await fetch(urlOf(added.address, receiver.port))
      assert.equal(probe.status, 200)
      const reachable = receiver.calls

      const literal = await save(client, 'Own address literal', urlOf(added.address, receiver.port))
      assert.equal(literal.status(), 400)
      assert.equal(literal.body().error.code, 'VALIDATION_ERROR')
      assert.equal(literal.body().error.details[0].field, 'url')
      assert.include(literal.body().error.message, 'destination address is not allowed (the machine itself)')

      names['own.example.test'] = added.address
      ;(await save(client, 'Own address by name', `http://own.example.test:${receiver.port}/hook`)).assertStatus(201)
      await emitter.emit('device.online', { id: '4', deviceId: '4', status: 'online', at: clock.now() })
      await engine.settle()
      assert.equal(receiver.calls, reachable, "nothing reached the machine's own address")
      const [entry] = await deliveries(client)
      assert.containsSubset(entry, { status: 'pending', attempts: 1, httpStatus: null, detail: 'destination address is not allowed' })
    } finally {
      added.remove()
      await receiver.close()
    }
  }).skip(!canAddInterface, 'adding an interface address needs root, iproute2 and the right to make a veth pair')

  test('an address on an interface up without a carrier (a cable out) still reaches the machine, and is refused', async ({ client, assert }) => {
    const receiver = await startEveryAddressReceiver()
    const added = await addInterfaceAddress({ carrier: false })
    try {
      assert.notInclude(
        Object.values(networkInterfaces()).flatMap((entries) => (entries ?? []).map((entry) => entry.address)),
        added.address,
        'Node does not list it'
      )
      assert.equal((await fetch(urlOf(added.address, receiver.port))).status, 200, 'yet it reaches this machine')
      const saved = await save(client, 'Own address without carrier', urlOf(added.address, receiver.port))
      assert.equal(saved.status(), 400)
      assert.include(saved.body().error.message, 'destination address is not allowed (the machine itself)')
    } finally {
      added.remove()
      await receiver.close()
    }
  }).skip(!canAddInterface, 'adding an interface address needs root, iproute2 and the right to make a veth pair')

  test("this machine's address {$self} is refused when saved")
    .with(interfaceAddresses)
    .run(async ({ client, assert }, address) => {
      const response = await save(client, `Own ${address}`, urlOf(address))
      assert.equal(response.status(), 400, address)
      assert.equal(response.body().error.details[0].field, 'url')
    })

  test('the machine itself in any spelling is refused when saved: {$self}')
    .with(['0.0.0.0', '[::]', '[::ffff:0.0.0.0]'])
    .run(async ({ client, assert }, host) => {
      const response = await save(client, `Unspecified ${host}`, `http://${host}:8080/hook`)
      assert.equal(response.status(), 400, host)
    })

  test('cloud metadata addresses are refused when saved: {$self}')
    .with(['100.100.100.200', '168.63.129.16', '192.0.0.192', '[fd00:ec2::254]', '[::ffff:168.63.129.16]', '[::ffff:6464:64c8]', '2822734096'])
    .run(async ({ client, assert }, host) => {
      const response = await save(client, `Metadata ${host}`, `http://${host}/latest`)
      assert.equal(response.status(), 400, host)
      assert.equal(response.body().error.details[0].field, 'url')
      assert.include(response.body().error.message, '(cloud metadata)')
    })

  test('a name resolving to a cloud metadata address is never connected to: {$self}')
    .with(['100.100.100.200', '168.63.129.16', '192.0.0.192', 'fd00:ec2::254'])
    .run(async ({ client, assert }, address) => {
      // The policy refuses the resolved address before any socket opens: nothing leaves the machine.
      names['metadata.example.test'] = address
      ;(await save(client, `Metadata by name ${address}`, 'http://metadata.example.test/latest')).assertStatus(201)
      await emitter.emit('device.online', { id: '4', deviceId: '4', status: 'online', at: clock.now() })
      await engine.settle()
      const [entry] = await deliveries(client)
      assert.containsSubset(entry, { status: 'pending', attempts: 1, httpStatus: null, detail: 'destination address is not allowed' })
    })
})
