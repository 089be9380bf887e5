import { test } from '@japa/runner'
import { spawn, execFileSync, type ChildProcess } from 'node:child_process'
import emitter from '@adonisjs/core/services/emitter'
import { useManualClock } from '#tests/helpers/clock'
import { testKeys, useTestKeys } from '#tests/helpers/callers'
import { eventually } from '#tests/helpers/phones'
import { freePort } from '#tests/helpers/gateway_process'
import { clearWebhooks, createWebhook, deliveries, startReceiver, useWebhookEngine } from '#tests/helpers/webhooks'

/** docs/webhooks.md points receivers at these; the tests prove they verify real calls. */
test.group('The receiver examples of docs/webhooks.md', (group) => {
  let engine: Awaited<ReturnType<typeof useWebhookEngine>>
  let restoreClock: () => void
  let receiverProcess: ChildProcess | null = null

  group.setup(() => useTestKeys())
  group.each.setup(async () => {
    await clearWebhooks()
    // The examples check X-Timestamp against the real clock: start the manual one at real time.
    const manual = useManualClock(new Date())
    restoreClock = manual.restore
    engine = await useWebhookEngine(manual.clock)
    return async () => {
      receiverProcess?.kill()
      receiverProcess = null
      await engine.stop()
      restoreClock()
    }
  })

  test('docs/examples/webhook-receiver.mjs verifies a real call and refuses a wrong secret', async ({ client, assert }) => {
    const port = await freePort()
    const output: string[] = []
    const start = (secret: string) => {
      const child = spawn(process.execPath, ['docs/examples/webhook-receiver.mjs'], {
        env: { PATH: process.env.PATH, WEBHOOK_SECRET: secret, PORT: String(port), HOST: '127.0.0.1' },
      })
      child.stdout!.on('data', (chunk) => output.push(...String(chunk).trim().split('\n')))
      return child
    }
    const { webhook, secret } = await createWebhook(client, { url: `http://127.0.0.1:${port}/`, events: ['device.offline'] })
    receiverProcess = start(secret)
    await eventually(() => output.some((line) => line.startsWith('listening')))

    await emitter.emit('device.offline', { id: '5', deviceId: '5', status: 'offline', at: new Date() })
    await engine.settle()
    await eventually(() => output.some((line) => line.startsWith('verified')))
    assert.include(output.find((line) => line.startsWith('verified'))!, 'verified device.offline {"event":"device.offline"')
    assert.containsSubset((await deliveries(client))[0], { status: 'success', httpStatus: 204 })

    // The same receiver with another secret refuses with 401: the delivery stays pending.
    receiverProcess.kill()
    await new Promise((resolve) => receiverProcess!.once('exit', resolve))
    output.length = 0
    receiverProcess = start('not-the-secret-0123456789')
    await eventually(() => output.some((line) => line.startsWith('listening')))
    const replay = await client.post(`/api/v1/webhooks/deliveries/${(await deliveries(client))[0].id}/replay`).header('x-api-key', testKeys.admin)
    replay.assertStatus(201)
    await engine.settle()
    await eventually(() => output.includes('refused: bad signature'))
    const [latest] = await deliveries(client, { webhookId: webhook.id })
    assert.containsSubset(latest, { status: 'pending', httpStatus: 401 })
  })

  test('the openssl one-liner computes the X-Signature of a real call', async ({ client, assert }) => {
    const receiver = await startReceiver()
    try {
      const { secret } = await createWebhook(client, { url: receiver.url, events: ['device.offline'] })
      await emitter.emit('device.offline', { id: '6', deviceId: '6', status: 'offline', at: new Date() })
      await engine.settle()
      const [call] = receiver.calls
      const computed = execFileSync(
        'sh',
        ['-c', `printf '%s.%s.%s' "$X_TIMESTAMP" "$X_DELIVERY_ID" "$BODY" | openssl dgst -sha256 -hmac "$WEBHOOK_SECRET" | sed 's/^.*= /sha256=/'`],
        { env: { PATH: process.env.PATH, X_TIMESTAMP: String(call.headers['x-timestamp']), X_DELIVERY_ID: String(call.headers['x-delivery-id']), BODY: call.rawBody, WEBHOOK_SECRET: secret } }
      )
        .toString()
        .trim()
      assert.equal(computed, call.headers['x-signature'])
    } finally {
      await receiver.close()
    }
  })
})
