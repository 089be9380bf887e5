import { test } from '@japa/runner'
import db from '@adonisjs/lucid/services/db'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { clearMessaging } from '#tests/helpers/messages'
import { browserForEachTest, gatewayUrl, signInAs } from './browser.js'
import { useContactImportJobs } from './helpers_imports.js'

/** Latin-1 letters as their own byte, and the euro sign at 0x80, as Windows-1252 writes them. */
function windows1252(text: string): Buffer {
  return Buffer.from([...text].map((char) => (char === '€' ? 0x80 : char.charCodeAt(0))))
}

test.group('Contact import of a non-UTF-8 CSV in a real browser', (group) => {
  let page: Page
  let imports: Awaited<ReturnType<typeof useContactImportJobs>>

  const browsing = browserForEachTest(group, { testKeys: true })
  group.each.setup(async () => {
    await db.from('contact_imports').delete()
    await clearMessaging()
    imports = await useContactImportJobs('import-encoding-browser-')
    page = browsing.page
    return () => imports.stop()
  })

  test('an Excel CSV in Windows-1252: the encoding detected, the accented names previewed, garbled as UTF-8, imported right', async ({ assert }) => {
    const csv = join(imports.folder, 'clients.csv')
    await writeFile(csv, windows1252('Téléphone;Prénom;Nom;Société\r\n06 12 34 56 78;Zoë;Müller;Café €\r\n0612345679;José;Ñúñez;\r\n'))
    await signInAs(page, 'operator')
    await page.goto(gatewayUrl('/contacts/import'))
    await page.getByLabel('CSV file').setInputFiles(csv)
    await page.getByRole('button', { name: 'Upload and read the columns' }).click()
    await page.getByText('clients.csv: 2 rows').waitFor()

    const preview = page.getByTestId('import-preview')
    await page.getByTestId('import-encoding').getByText('Detected: Windows-1252').waitFor()
    assert.equal(await page.getByLabel('Encoding').inputValue(), 'windows-1252')
    await preview.getByText('Zoë', { exact: true }).waitFor()
    await preview.getByText('Müller', { exact: true }).waitFor()
    await preview.getByText('José', { exact: true }).waitFor()
    await preview.getByText('Café €', { exact: true }).waitFor()
    await preview.locator('legend', { hasText: 'Prénom' }).waitFor()
    assert.equal(await page.getByLabel('Use as').nth(1).inputValue(), 'firstName')

    // Read as UTF-8, the same rows lose their accents: what the operator would have got.
    await page.getByLabel('Encoding').selectOption('utf-8')
    await preview.getByText('Zo\ufffd', { exact: true }).waitFor()
    await preview.locator('legend', { hasText: 'Pr\ufffdnom' }).waitFor()
    assert.equal(await preview.getByText('Zoë', { exact: true }).count(), 0)
    // The uses chosen stay with their columns.
    assert.equal(await page.getByLabel('Use as').nth(1).inputValue(), 'firstName')

    await page.getByLabel('Encoding').selectOption('windows-1252')
    await preview.getByText('Zoë', { exact: true }).waitFor()
    await page.getByRole('button', { name: 'Import 2 rows' }).click()
    await page.getByRole('heading', { name: '3. Importing' }).or(page.getByRole('heading', { name: 'Imported' })).waitFor()
    await imports.clock.advance(0)
    await imports.runner.whenIdle()
    await page.getByRole('heading', { name: 'Imported' }).waitFor()
    await page.getByTestId('import-counts').getByText('New contacts2').waitFor()

    assert.deepInclude(await db.from('contacts').where('phone', '+33612345678').first(), { first_name: 'Zoë', last_name: 'Müller', company: 'Café €' })
    assert.deepInclude(await db.from('contacts').where('phone', '+33612345679').first(), { first_name: 'José', last_name: 'Ñúñez' })
  })
})
