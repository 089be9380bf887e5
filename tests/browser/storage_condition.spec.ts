import { test } from '@japa/runner'
import sqlite3 from 'sqlite3'
import db from '@adonisjs/lucid/services/db'
import type { Browser } from 'playwright-core'
import { DataFolder } from '#core/data_folder/data_folder'
import { testKeys, useTestKeys } from '#tests/helpers/callers'
import { DESKTOP, gatewayUrl, launchChromium, signInAs } from './browser.js'

/** Another program holding the database's write lock, as an operator's `sqlite3` shell can. */
async function holdWriteLock(): Promise<{ release(): Promise<void> }> {
  const other = await new Promise<sqlite3.Database>((resolve, reject) => {
    const database = new sqlite3.Database(DataFolder.current().databaseFile, (error) => (error ? reject(error) : resolve(database)))
  })
  await new Promise<void>((resolve, reject) => other.exec('BEGIN IMMEDIATE', (error) => (error ? reject(error) : resolve())))
  return { release: () => new Promise<void>((resolve) => other.exec('ROLLBACK', () => other.close(() => resolve()))) }
}

function send(body: string) {
  return fetch(gatewayUrl('/api/v1/messages'), {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': testKeys.send },
    body: JSON.stringify({ to: ['+33612345670'], body }),
  })
}

test.group('The Overview says when the gateway cannot write', (group) => {
  let browser: Browser
  group.setup(async () => {
    browser = await launchChromium()
    return () => browser.close()
  })

  test('a database held by another program is shown on the Overview, and the notice goes once writes go through again', async ({ assert }) => {
    await useTestKeys()
    await db.from('sessions').delete()
    const context = await browser.newContext({ viewport: DESKTOP })
    const page = await context.newPage()
    await signInAs(page, 'operator')
    assert.equal(await page.getByTestId('database-locked').count(), 0)
    const lock = await holdWriteLock()
    let held = true
    try {
      assert.equal((await send('behind the lock')).status, 503)
      await page.reload()
      await page.getByTestId('database-locked').getByText('held by another program').waitFor()

      await lock.release()
      held = false
      assert.equal((await send('after the lock')).status, 202)
      await page.reload()
      await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor()
      await page.getByTestId('today').waitFor()
      assert.equal(await page.getByTestId('database-locked').count(), 0)
    } finally {
      if (held) await lock.release()
      await context.close()
    }
  }).timeout(60_000)
})
