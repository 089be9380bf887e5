import { test } from '@japa/runner'
import { randomUUID } from 'node:crypto'
import { rmSync } from 'node:fs'
import app from '@adonisjs/core/services/app'
import { DataFolder } from '#core/data_folder/data_folder'
import { signInAs, testKeys, useTestKeys } from '#tests/helpers/callers'
import { eventually } from '#tests/helpers/phones'
import { openLiveStream } from '#tests/helpers/live_stream'
import { BackupSnapshot } from '#modules/backups/services/backup_engine'

test.group('Live notices to signed-in dashboards', (group) => {
  group.setup(() => useTestKeys())
  group.each.setup(() => {
    rmSync(DataFolder.current().backupsDir, { recursive: true, force: true })
    return () => app.container.restore(BackupSnapshot)
  })

  test('a signed-in dashboard (any role) subscribed to notices sees a failed backup at once', async ({ client, assert }) => {
    const session = await signInAs(client, 'readonly')
    const stream = await openLiveStream(client, session, 'notices')
    try {
      app.container.swap(BackupSnapshot, () => ({ copy: async () => Promise.reject(Object.assign(new Error('full'), { code: 'ENOSPC' })) }))
      ;(await client.post('/api/v1/backups').header('x-api-key', testKeys.admin)).assertStatus(503)

      await eventually(() => stream.events().some((event) => event.type === 'backup.failed'))
      const notice = stream.events().find((event) => event.type === 'backup.failed')!
      assert.containsSubset(notice, { type: 'backup.failed', details: { reason: 'disk full: the snapshot could not be written' } })
      assert.include(notice.message, 'disk full')
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
