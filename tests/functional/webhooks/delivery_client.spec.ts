import { test } from '@japa/runner'
import net from 'node:net'
import type { AddressInfo } from 'node:net'
import { SystemClock } from '#core/time/clock'
import { DeliveryClient } from '#modules/webhooks/services/delivery_client'
import { LoopbackAllowingPolicy } from '#tests/helpers/webhooks'

/**
 * A receiver on a raw socket that keeps connections open after answering and, like a server
 * whose idle timer fired, drops a kept-open connection the moment the next call arrives on it.
 */
async function receiverThatDropsKeptConnections() {
  const seen = { connections: 0, answered: 0, dropped: 0 }
  const server = net.createServer((socket) => {
    seen.connections++
    let calls = 0
    socket.on('data', () => {
      calls++
      if (calls > 1) {
        seen.dropped++
        return socket.destroy()
      }
      seen.answered++
      socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\nok')
    })
    socket.on('error', () => {})
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`
  return { url, seen, close: () => new Promise((resolve) => server.close(resolve)) }
}

test.group('Webhook calls on kept-open connections', () => {
  test('a kept connection the receiver dropped is retried at once on a new one', async ({ assert, cleanup }) => {
    const receiver = await receiverThatDropsKeptConnections()
    const client = new DeliveryClient(new LoopbackAllowingPolicy({ allowPrivateNetworks: true }), new SystemClock())
    cleanup(async () => {
      client.close()
      await receiver.close()
    })
    const call = { url: receiver.url, method: 'POST' as const, headers: [['content-type', 'application/json']] as Array<[string, string]>, body: '{}' }

    const first = await client.call(call)
    assert.deepInclude(first, { ok: true, httpStatus: 200, answer: 'ok', error: null })
    // The second call goes out on the kept connection, which the receiver drops unanswered.
    const second = await client.call(call)
    assert.deepInclude(second, { ok: true, httpStatus: 200, answer: 'ok', error: null })
    assert.deepEqual(receiver.seen, { connections: 2, answered: 2, dropped: 1 })
  })

  test('a fresh connection dropped unanswered is a failed attempt, not retried', async ({ assert, cleanup }) => {
    let connections = 0
    const server = net.createServer((socket) => {
      connections++
      socket.on('data', () => socket.destroy())
      socket.on('error', () => {})
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const client = new DeliveryClient(new LoopbackAllowingPolicy({ allowPrivateNetworks: true }), new SystemClock())
    cleanup(async () => {
      client.close()
      await new Promise((resolve) => server.close(resolve))
    })
    const outcome = await client.call({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, method: 'POST', headers: [], body: '{}' })
    assert.deepInclude(outcome, { ok: false, httpStatus: null, error: 'connection reset' })
    assert.equal(connections, 1)
  })
})
