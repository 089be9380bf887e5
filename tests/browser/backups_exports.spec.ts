import { test } from '@japa/runner'
import { rmSync } from 'node:fs'
import db from '@adonisjs/lucid/services/db'
import type { Page } from 'playwright-core'
import { DataFolder } from '#core/data_folder/data_folder'
import { browserForEachTest, gatewayUrl, screenshotsAtBothWidths, signInAs } from './browser.js'
import { adminApi, downloadBy, menuEntries, openFromMenu } from './helpers_data_pages.js'

const SQLITE_HEADER = 'SQLite format 3\0'

test.group('Backups and Exports pages in a real browser', (group) => {
  let page: Page

  const browsing = browserForEachTest(group, { testKeys: true, context: { acceptDownloads: true } })
  group.each.setup(async () => {
    rmSync(DataFolder.current().backupsDir, { recursive: true, force: true })
    await db.from('backup_attempts').delete()
    await adminApi('DELETE', '/backups/restore')
    page = browsing.page
  })

  test('a superadmin backs up from the page, sees it live, downloads it, prepares a restore and cancels it', async ({ assert }) => {
    await signInAs(page, 'superadmin')
    await openFromMenu(page, 'Backups')
    const files = page.getByTestId('backup-files')
    const attempts = page.getByTestId('backup-attempts')
    await files.getByText('No backup yet.').waitFor()

    await page.getByRole('button', { name: 'Back up now' }).click()
    // The steps arrive on the live channel; the last one names the file and its outcome.
    const progress = page.getByTestId('backup-progress')
    await progress.getByText(/written and checked/).waitFor()
    const name = /Backup (\S+\.db) written/.exec(await progress.innerText())![1]
    await files.getByText(name).waitFor()
    await attempts.getByText('succeeded').waitFor()
    assert.equal(await attempts.getByText('Manual').count(), 1)

    // A backup made elsewhere (an integration, the schedule) appears without a reload.
    const other = await adminApi('POST', '/backups')
    assert.equal(other.status, 201)
    await files.getByText(other.body.name).waitFor()
    await attempts.getByText('succeeded').nth(1).waitFor()

    const file = await downloadBy(page, page.getByRole('link', { name: `Download ${name}` }))
    assert.equal(file.name, name)
    assert.isAbove(file.bytes.length, 4096)
    assert.equal(file.bytes.subarray(0, 16).toString('latin1'), SQLITE_HEADER)

    await page.getByRole('button', { name: `Restore ${name}…` }).click()
    await page.getByText(`Replace the database with ${name}?`).waitFor()
    await page.getByRole('button', { name: 'Prepare the restore' }).click()
    const pending = page.getByTestId('pending-restore')
    await pending.getByText('will replace the database at the next restart of the gateway').waitFor()
    assert.include(await pending.innerText(), name)
    assert.deepEqual((await adminApi('GET', '/backups/restore')).body, { pending: true, name })
    await screenshotsAtBothWidths(page, 'backups')

    await pending.getByRole('button', { name: 'Cancel the restore' }).click()
    await pending.waitFor({ state: 'detached' })
    assert.deepEqual((await adminApi('GET', '/backups/restore')).body, { pending: false })
  })

  test('the schedule form shows a bad value beside its field, then saves a good one', async ({ assert }) => {
    await adminApi('PATCH', '/settings', { backup: { enabled: true, frequency: 'daily', dailyAt: '03:00', retention: 7 } })
    await signInAs(page, 'superadmin')
    await openFromMenu(page, 'Backups')
    const retention = page.getByLabel('Copies kept (1 to 365)')
    // The form is filled from GET /settings first; typing before that would be overwritten.
    await page.waitForFunction('document.getElementById("backup-retention")?.value === "7"')
    await page.getByLabel('Time of day (HH:MM, platform time zone)').fill('25:00')
    await retention.fill('0')
    await retention.press('Enter')
    await page.getByRole('alert').getByText('Check the fields marked below.').waitFor()
    const feedbackOf = (label: string) => page.locator('.n-form-item', { has: page.getByLabel(label) }).locator('.n-form-item-feedback')
    assert.match(await feedbackOf('Copies kept (1 to 365)').innerText(), /retention/)
    assert.match(await feedbackOf('Time of day (HH:MM, platform time zone)').innerText(), /dailyAt/)
    assert.equal((await adminApi('GET', '/settings')).body.backup.retention, 7)

    await page.getByLabel('Time of day (HH:MM, platform time zone)').fill('04:30')
    await retention.fill('14')
    await page.getByRole('button', { name: 'Save the schedule' }).click()
    await page.getByText(/^Saved at/).waitFor()
    // The error leaves its field (after Naive UI's fade-out).
    await feedbackOf('Copies kept (1 to 365)').getByText(/retention/).waitFor({ state: 'detached' })
    const saved = (await adminApi('GET', '/settings')).body.backup
    assert.containsSubset(saved, { dailyAt: '04:30', retention: 14, frequency: 'daily', enabled: true })
    await page.getByTestId('next-run').getByText(/Next automatic backup/).waitFor()

    // Every few hours: the hours field takes the time's place.
    await page.getByText('Every few hours').click()
    await page.getByLabel('Hours between backups (1 to 168)').fill('6')
    await page.getByRole('button', { name: 'Save the schedule' }).click()
    await page.waitForFunction(async () => {
      const answer = (await fetch('/api/v1/settings').then((response) => response.json())) as { backup: { frequency: string; intervalHours: number } }
      return answer.backup.frequency === 'interval' && answer.backup.intervalHours === 6
    })
  })

  test('an operator exports messages and contacts as files, sees no Backups page and no database export', async ({ assert }) => {
    const queued = await adminApi('POST', '/messages', { to: '+33612345678', body: 'Export me' })
    assert.equal(queued.status, 202)
    await signInAs(page, 'operator')
    assert.notInclude(await menuEntries(page), 'Backups')
    await openFromMenu(page, 'Exports')
    assert.equal(await page.getByText('Full database').count(), 0)
    assert.equal(await page.getByRole('link', { name: 'Download the database' }).count(), 0)

    const messages = await downloadBy(page, page.getByRole('link', { name: 'Download CSV of the messages' }))
    assert.match(messages.name, /^messages-.*\.csv$/)
    const lines = messages.bytes.toString('utf8').trim().split('\n')
    assert.equal(lines[0].trim(), 'id,conversationId,direction,phone,body,encoding,segments,status,errorCode,deviceId,simSlot,attempts,createdAt,sentAt,deliveredAt,failedAt')
    assert.isAtLeast(lines.length, 2)

    await page.getByText('JSON', { exact: true }).click()
    const contacts = await downloadBy(page, page.getByRole('link', { name: 'Download JSON of the contacts' }))
    assert.match(contacts.name, /^contacts-.*\.json$/)
    assert.isArray(JSON.parse(contacts.bytes.toString('utf8')))
    await screenshotsAtBothWidths(page, 'exports')

    // Backups are the superadmin's: the address itself leads back to the Overview.
    await page.goto(gatewayUrl('/backups'))
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor()
  })

  test('a superadmin downloads the whole database from the Exports page', async ({ assert }) => {
    await signInAs(page, 'superadmin')
    await openFromMenu(page, 'Exports')
    const database = await downloadBy(page, page.getByRole('link', { name: 'Download the database' }))
    assert.match(database.name, /\.db$/)
    assert.equal(database.bytes.subarray(0, 16).toString('latin1'), SQLITE_HEADER)
  })

  test('a read-only account exports but sees no Backups page, no database export and no action button', async ({ assert }) => {
    await signInAs(page, 'readonly')
    const entries = await menuEntries(page)
    assert.include(entries, 'Exports')
    assert.notInclude(entries, 'Backups')
    await openFromMenu(page, 'Exports')
    await page.getByRole('link', { name: 'Download CSV of the messages' }).waitFor()
    assert.equal(await page.getByRole('link', { name: 'Download the database' }).count(), 0)
    // Downloading is what every role may do here; there is nothing to change, so no button.
    assert.equal(await page.locator('main').getByRole('button').count(), 0)
    await page.goto(gatewayUrl('/backups'))
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor()
  })
})
