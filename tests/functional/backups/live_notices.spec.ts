import { test } from '@japa/runner'
import http from 'node:http'
import { randomUUID } from 'node:crypto'
import { rmSync } from 'node:fs'
import app from '@adonisjs/core/services/app'
import { DataFolder } from '#core/data_folder/data_folder'
import { signInAs, testKeys, useTestKeys, type BrowserSession } from '#tests/helpers/callers'
import { eventually } from '#tests/helpers/phones'
import { BackupEngine } from '#modules/backups/services/backup_engine'

/** A dashboard's event stream, read as a browser's EventSource would. */
function openStream(uid: string, session: BrowserSession) {
  let received = ''
  let status = 0
  const request = http.get(`${process.env.GATEWAY_PUBLIC_URL}/__transmit/events?uid=${uid}`, { headers: { cookie: session.cookie, accept: 'text/event-stream' } }, (response) => {
    status = response.statusCode ?? 0
    response.on('data', (chunk) => (received += chunk))
  })
  request.on('error', () => {})
  return { received: () => received, status: () => status, close: () => request.destroy() }
}

test.group('Live notices to signed-in dashboards', (group) => {
  group.setup(() => useTestKeys())
  group.each.setup(() => {
    rmSync(DataFolder.current().backupsDir, { recursive: true, force: true })
    return () => app.container.restore(BackupEngine)
  })

  test('a signed-in dashboard (any role) subscribed to notices sees a failed backup at once', async ({ client, assert }) => {
    const session = await signInAs(client, 'readonly')
    const uid = randomUUID()
    const stream = openStream(uid, session)
    try {
      await eventually(() => stream.status() === 200)
      const subscribed = await client
        .post('/__transmit/subscribe')
        .header('cookie', session.cookie)
        .header('x-xsrf-token', session.xsrf)
        .json({ uid, channel: 'notices' })
      subscribed.assertStatus(204)

      const engine = await app.container.make(BackupEngine)
      app.container.swap(BackupEngine, () => engine.with({ snapshot: async () => Promise.reject(Object.assign(new Error('full'), { code: 'ENOSPC' })) }))
      ;(await client.post('/api/v1/backups').header('x-api-key', testKeys.admin)).assertStatus(503)

      await eventually(() => stream.received().includes('backup.failed'))
      const line = stream.received().split('\n').find((entry) => entry.includes('backup.failed'))!
      const event = JSON.parse(line.replace(/^data:\s*/, ''))
      assert.equal(event.channel, 'notices')
      assert.containsSubset(event.payload, { type: 'backup.failed', details: { reason: 'disk full: the snapshot could not be written' } })
      assert.include(event.payload.message, 'disk full')
    } finally {
      stream.close()
    }
  })

  test('no stream without a signed-in session, and none for an API key', async ({ client }) => {
    const anonymous = await client.get(`/__transmit/events?uid=${randomUUID()}`)
    anonymous.assertStatus(401)
    anonymous.assertBodyContains({ error: { code: 'MISSING_API_KEY' } })
    const byKey = await client.get(`/__transmit/events?uid=${randomUUID()}`).header('x-api-key', testKeys.admin)
    byKey.assertStatus(403)
    const subscribe = await client.post('/__transmit/subscribe').json({ uid: randomUUID(), channel: 'notices' })
    subscribe.assertStatus(401)
  })
})
