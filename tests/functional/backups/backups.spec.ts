import { test } from '@japa/runner'
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import app from '@adonisjs/core/services/app'
import db from '@adonisjs/lucid/services/db'
import emitter from '@adonisjs/core/services/emitter'
import { DataFolder } from '#core/data_folder/data_folder'
import { SettingsStore } from '#core/settings/settings_store'
import { settingsCatalogue } from '#core/settings/settings_catalogue'
import { testKeys, useTestKeys } from '#tests/helpers/callers'
import { clearMessaging } from '#tests/helpers/messages'
import { BackupSnapshot } from '#modules/backups/services/backup_engine'
import { startSmtpReceiver } from '#tests/helpers/smtp_receiver'
import { checkedFetch } from '#tests/helpers/answer_contract'

const backupsDir = () => DataFolder.current().backupsDir

test.group('Backups', (group) => {
  group.setup(() => useTestKeys())
  group.each.setup(async () => {
    rmSync(backupsDir(), { recursive: true, force: true })
    await db.from('backup_attempts').delete()
    await clearMessaging()
    const settings = await app.container.make(SettingsStore)
    await settings.update({ backup: settingsCatalogue.defaults('backup'), notifications: settingsCatalogue.defaults('notifications') })
    return async () => {
      app.container.restore(BackupSnapshot)
      await settings.update({ backup: settingsCatalogue.defaults('backup'), notifications: settingsCatalogue.defaults('notifications') })
    }
  })

  const backup = (client: any) => client.post('/api/v1/backups').header('x-api-key', testKeys.admin)
  const list = async (client: any) => (await client.get('/api/v1/backups').header('x-api-key', testKeys.admin)).body().data
  const attempts = async (client: any) => (await client.get('/api/v1/backups/attempts').header('x-api-key', testKeys.admin)).body().data

  test('POST /backups writes a verified copy into backups/, listed as Manual and downloadable', async ({ client, assert }) => {
    const response = await backup(client)
    response.assertStatus(201)
    const attempt = response.body()
    assert.containsSubset(attempt, { origin: 'manual', outcome: 'success', reason: null })
    assert.match(attempt.name, /^gateway-\d{8}-\d{6}(-\d+)?\.db$/)
    assert.deepEqual(readdirSync(backupsDir()), [attempt.name], 'no partial file left beside it')
    assert.equal(attempt.size, readFileSync(join(backupsDir(), attempt.name)).length)

    const [listed] = await list(client)
    assert.deepEqual(listed, { name: attempt.name, origin: 'Manual', journalled: true, size: attempt.size, createdAt: attempt.finishedAt })

    const download = await checkedFetch(`${process.env.GATEWAY_PUBLIC_URL}/api/v1/backups/${attempt.name}/download`, { headers: { 'x-api-key': testKeys.admin } })
    assert.equal(download.status, 200)
    assert.equal(download.headers.get('content-disposition'), `attachment; filename="${attempt.name}"`)
    assert.isTrue(Buffer.from(await download.arrayBuffer()).equals(readFileSync(join(backupsDir(), attempt.name))))
  })

  test('a .db file placed in backups/ is listed as Imported; other files are not listed', async ({ client, assert }) => {
    const made = (await backup(client)).body()
    copyFileSync(join(backupsDir(), made.name), join(backupsDir(), 'from-old-server.db'))
    writeFileSync(join(backupsDir(), 'notes.txt'), 'not a backup')
    writeFileSync(join(backupsDir(), '.hidden.db'), 'not listed')
    const names = (await list(client)).map((file: any) => `${file.name}:${file.origin}:${file.journalled}`)
    assert.sameMembers(names, [`${made.name}:Manual:true`, 'from-old-server.db:Imported:false'])
  })

  test('a full disk: the attempt is failed with a short reason, the file is gone, the alert (SMS and e-mail) and event go out', async ({ client, assert }) => {
    const smtp = await startSmtpReceiver()
    const settings = await app.container.make(SettingsStore)
    await settings.update({
      notifications: {
        adminPhones: ['+33600000001'],
        adminEmails: ['ops@example.com', 'owner@example.com'],
        smtpHost: '127.0.0.1',
        smtpPort: smtp.port,
        smtpSecurity: 'none',
        smtpUsername: 'alerts',
        smtpPassword: 'smtp-password-123',
        smtpFrom: 'gateway@example.com',
      },
    })
    app.container.swap(BackupSnapshot, () => ({
      copy: async (_source, target) => {
        writeFileSync(target, Buffer.alloc(4096, 1))
        throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' })
      },
    }))
    const events: any[] = []
    const listener = (payload: any) => events.push(payload)
    emitter.on('backup.failed', listener)
    try {
      const response = await backup(client)
      response.assertStatus(503)
      response.assertBodyContains({ error: { code: 'BACKUP_FAILED' } })
      const attempt = response.body().error.details.attempt
      assert.containsSubset(attempt, { outcome: 'failed', reason: 'disk full: the snapshot could not be written', size: null })
      assert.deepEqual(readdirSync(backupsDir()), [], 'the damaged file is deleted')
      assert.deepEqual(await list(client), [])
      assert.containsSubset((await attempts(client))[0], { id: attempt.id, outcome: 'failed' })
      assert.deepEqual(events.map((event) => ({ id: event.id, status: event.status })), [{ id: attempt.name, status: 'failed' }])

      const activity = await client.get('/api/v1/activity').qs({ source: 'backups' }).header('x-api-key', testKeys.read)
      assert.containsSubset(activity.body().data[0], { level: 'error' })
      assert.include(activity.body().data[0].message, 'disk full')
      const alert = await db.from('messages').where('phone', '+33600000001').first()
      assert.equal(alert.category, 'info')
      assert.include(alert.body, 'failed')
      assert.lengthOf(smtp.mails, 1)
      const [mail] = smtp.mails
      assert.deepEqual(mail.to, ['ops@example.com', 'owner@example.com'])
      assert.equal(mail.from, 'gateway@example.com')
      assert.equal(mail.user, 'alerts')
      assert.include(mail.raw, `Subject: Backup failed: ${attempt.name}`)
      assert.include(mail.raw, 'disk full')
    } finally {
      emitter.off('backup.failed', listener)
      await smtp.close()
    }
  })

  test('a backups folder that cannot be written (a file in its place): 503 BACKUP_FAILED, the attempt recorded as failed', async ({ client, assert }) => {
    writeFileSync(backupsDir(), 'a regular file where the backups folder should be')
    const events: any[] = []
    const listener = (payload: any) => events.push(payload)
    emitter.on('backup.failed', listener)
    try {
      const response = await backup(client)
      response.assertStatus(503)
      assert.equal(response.body().error.code, 'BACKUP_FAILED')
      const attempt = response.body().error.details.attempt
      assert.containsSubset(attempt, { origin: 'manual', outcome: 'failed', reason: 'the backups folder cannot be written (EEXIST)', size: null })
      assert.notInclude(JSON.stringify(response.body()), backupsDir(), 'no path in the answer')
      assert.containsSubset((await attempts(client))[0], { id: attempt.id, outcome: 'failed', reason: attempt.reason })
      assert.deepEqual(events.map((event) => event.status), ['failed'])
      const activity = await client.get('/api/v1/activity').qs({ source: 'backups' }).header('x-api-key', testKeys.read)
      assert.containsSubset(activity.body().data[0], { level: 'error' })
      assert.include(activity.body().data[0].message, 'the backups folder cannot be written')
      assert.equal(readFileSync(backupsDir(), 'utf8'), 'a regular file where the backups folder should be', 'the file is left alone')
    } finally {
      emitter.off('backup.failed', listener)
      rmSync(backupsDir(), { force: true })
    }
  })

  test('a copy that does not read back as this product\'s database fails and is deleted', async ({ client, assert }) => {
    app.container.swap(BackupSnapshot, () => ({ copy: async (_source, target) => writeFileSync(target, 'SQLite format 3\u0000 but not really') }))
    const response = await backup(client)
    response.assertStatus(503)
    assert.match(response.body().error.details.attempt.reason, /^the copy did not read back: /)
    assert.deepEqual(readdirSync(backupsDir()), [])
  })

  test('the alert is not sent when switched off in Settings > Notifications', async ({ client, assert }) => {
    const settings = await app.container.make(SettingsStore)
    await settings.update({ notifications: { adminPhones: ['+33600000002'], backupFailedAlert: false } })
    app.container.swap(BackupSnapshot, () => ({ copy: async () => Promise.reject(Object.assign(new Error('disk'), { code: 'ENOSPC' })) }))
    ;(await backup(client)).assertStatus(503)
    assert.isNull(await db.from('messages').where('phone', '+33600000002').first())
  })

  test('retention keeps the newest copies after a success, imported files included; a lower value waits for the next success', async ({ client, assert }) => {
    mkdirSync(backupsDir(), { recursive: true })
    const first = (await backup(client)).body()
    // An imported copy, older than everything.
    copyFileSync(join(backupsDir(), first.name), join(backupsDir(), 'imported-2020.db'))
    const { utimesSync } = await import('node:fs')
    utimesSync(join(backupsDir(), 'imported-2020.db'), new Date('2020-01-01'), new Date('2020-01-01'))
    const settings = await app.container.make(SettingsStore)
    await settings.update({ backup: { retention: 2 } })
    assert.lengthOf(await list(client), 2, 'lowering retention deletes nothing by itself')

    // A failure deletes nothing either.
    app.container.swap(BackupSnapshot, () => ({ copy: async () => Promise.reject(new Error('boom')) }))
    ;(await backup(client)).assertStatus(503)
    assert.lengthOf(await list(client), 2)
    app.container.restore(BackupSnapshot)

    await db.from('backup_attempts').where('name', first.name).update({ finished_at: '2021-01-01T00:00:00.000Z' })
    const second = (await backup(client)).body()
    const names = (await list(client)).map((file: any) => file.name)
    assert.deepEqual(names, [second.name, first.name], 'the oldest (the imported file) went first')
    assert.isFalse(existsSync(join(backupsDir(), 'imported-2020.db')))
  })

  test('names outside the rule are refused as unknown; nothing outside backups/ is reachable', async ({ client }) => {
    await backup(client)
    for (const name of ['..%2Fgateway.db', 'gateway.db', '.hidden.db', 'x.txt', '-dash.db']) {
      const response = await client.get(`/api/v1/backups/${name}/download`).header('x-api-key', testKeys.admin)
      response.assertStatus(404)
    }
  })
})
