import { test } from '@japa/runner'
import http from 'node:http'
import { randomUUID } from 'node:crypto'
import { rmSync } from 'node:fs'
import app from '@adonisjs/core/services/app'
import { DataFolder } from '#core/data_folder/data_folder'
import { signInAs, testKeys, useTestKeys } from '#tests/helpers/callers'
import { eventually } from '#tests/helpers/phones'
import { openLiveStream } from '#tests/helpers/live_stream'
import { BackupSnapshot } from '#modules/backups/services/backup_engine'

test.group('Backup attempts live on the `backups` channel', (group) => {
  group.setup(() => useTestKeys())
  group.each.setup(() => {
    rmSync(DataFolder.current().backupsDir, { recursive: true, force: true })
    return () => app.container.restore(BackupSnapshot)
  })

  test('a superadmin dashboard sees each step of a backup, then its outcome, with the file name only', async ({ client, assert }) => {
    const session = await signInAs(client, 'superadmin')
    const stream = await openLiveStream(client, session, 'backups')
    try {
      const made = await client.post('/api/v1/backups').header('x-api-key', testKeys.admin)
      made.assertStatus(201)
      await eventually(() => stream.events().some((event) => event.step === 'finished'))
      const events = stream.events()
      assert.deepEqual(
        events.map((event) => event.step),
        ['copying', 'verifying', 'saving', 'finished']
      )
      for (const event of events) {
        assert.deepEqual(Object.keys(event).sort(), ['at', 'name', 'origin', 'outcome', 'step', 'type'])
        assert.containsSubset(event, { type: 'backup.progress', name: made.body().name, origin: 'manual' })
      }
      assert.equal(events[3].outcome, 'success')
    } finally {
      stream.close()
    }
  })

  test('a failed attempt ends with outcome failed on the channel', async ({ client, assert }) => {
    const session = await signInAs(client, 'superadmin')
    const stream = await openLiveStream(client, session, 'backups')
    try {
      app.container.swap(BackupSnapshot, () => ({ copy: async () => Promise.reject(Object.assign(new Error('full'), { code: 'ENOSPC' })) }))
      ;(await client.post('/api/v1/backups').header('x-api-key', testKeys.admin)).assertStatus(503)
      await eventually(() => stream.events().some((event) => event.step === 'finished'))
      assert.containsSubset(stream.events().at(-1), { step: 'finished', outcome: 'failed', origin: 'manual' })
    } finally {
      stream.close()
    }
  })

  test('an operator or read-only account may not subscribe to `backups` (backups hold the accounts)', async ({ client, assert }) => {
    for (const role of ['operator', 'readonly'] as const) {
      const session = await signInAs(client, role)
      const uid = randomUUID()
      let status = 0
      const request = http.get(`${process.env.GATEWAY_PUBLIC_URL}/__transmit/events?uid=${uid}`, { headers: { cookie: session.cookie } }, (response) => {
        status = response.statusCode ?? 0
      })
      request.on('error', () => {})
      try {
        // The stream is open (a subscription names a stream of the caller's session).
        await eventually(() => status === 200)
        const refused = await client.post('/__transmit/subscribe').header('cookie', session.cookie).header('x-xsrf-token', session.xsrf).json({ uid, channel: 'backups' })
        refused.assertStatus(403)
        assert.equal(refused.body().error.code, 'FORBIDDEN_SCOPE')
        assert.isString(refused.body().error.requestId)
      } finally {
        request.destroy()
      }
    }
  })
})
