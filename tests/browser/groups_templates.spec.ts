import { test } from '@japa/runner'
import db from '@adonisjs/lucid/services/db'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { testKeys } from '#tests/helpers/callers'
import { clearMessaging } from '#tests/helpers/messages'
import { browserForEachTest, gatewayUrl, screenshotsAtBothWidths, signInAs } from './browser.js'
import { useContactImportJobs } from './helpers_imports.js'

test.group('Groups, contact import and templates in a real browser', (group) => {
  let page: Page
  let imports: Awaited<ReturnType<typeof useContactImportJobs>>

  const browsing = browserForEachTest(group, { testKeys: true })
  group.each.setup(async () => {
    await db.from('contact_imports').delete()
    await db.from('contact_group_members').delete()
    await db.from('contact_groups').delete()
    await db.from('message_templates').delete()
    await clearMessaging()
    imports = await useContactImportJobs('groups-browser-')
    page = browsing.page
    return () => imports.stop()
  })

  test('a group made on its page, a CSV imported into it with its columns mapped, a member removed', async ({ assert }) => {
    const csv = join(imports.folder, 'customers.csv')
    await writeFile(csv, 'Mobile;Prénom;Ville\n06 12 34 56 78;Ada;Paris\n0612345679;Bob;Lyon\n;Nobody;Nice\n0612345680;Cy;Lille\n')
    await signInAs(page, 'operator')
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('menuitem', { name: 'Groups' }).click()
    await page.getByRole('heading', { name: 'Groups', level: 1 }).waitFor()
    await page.getByRole('button', { name: 'New group' }).click()
    await page.getByLabel('Name', { exact: true }).fill('Customers')
    await page.getByRole('button', { name: 'Create the group' }).click()
    await page.getByRole('link', { name: 'Customers' }).click()
    await page.getByRole('heading', { name: 'Group', level: 1 }).waitFor()
    await page.getByText('0 contacts').waitFor()

    await page.getByRole('link', { name: 'Import a CSV into this group' }).click()
    await page.getByRole('heading', { name: 'Import contacts', level: 1 }).waitFor()
    await page.getByLabel('CSV file').setInputFiles(csv)
    await page.getByRole('button', { name: 'Upload and read the columns' }).click()
    await page.getByText('customers.csv: 4 rows').waitFor()
    // The phone and first-name columns are recognised; Ville becomes a custom field.
    assert.equal(await page.getByLabel('Use as').nth(0).inputValue(), 'phone')
    assert.equal(await page.getByLabel('Use as').nth(1).inputValue(), 'firstName')
    assert.equal(await page.getByLabel('Use as').nth(2).inputValue(), 'field')
    assert.equal(await page.getByLabel('Add everyone to a group').locator('option:checked').textContent(), 'Customers')
    await screenshotsAtBothWidths(page, 'contact-import-mapping')
    await page.getByRole('button', { name: 'Import 4 rows' }).click()
    await page.getByRole('heading', { name: '3. Importing' }).or(page.getByRole('heading', { name: 'Imported' })).waitFor()
    await imports.clock.advance(0)
    await imports.runner.whenIdle()
    await page.getByRole('heading', { name: 'Imported' }).waitFor()
    await page.getByTestId('import-counts').getByText('New contacts3').waitFor()
    await page.getByTestId('import-errors').getByText('Row 4: No phone number').waitFor()
    await screenshotsAtBothWidths(page, 'contact-import-result')

    await page.getByRole('link', { name: 'Open the group' }).click()
    await page.getByText('3 contacts').waitFor()
    const members = page.getByTestId('group-members')
    await members.getByText('Bob').waitFor()
    await members.locator('tr', { hasText: 'Bob' }).getByRole('checkbox').click()
    await page.getByRole('button', { name: 'Remove 1 selected' }).click()
    await page.getByText('2 contacts').waitFor()
    await screenshotsAtBothWidths(page, 'group')
    const bob = await db.from('contacts').where('phone', '+33612345679').first()
    assert.exists(bob, 'removed from the group, still a contact')
    assert.deepEqual(JSON.parse((await db.from('contacts').where('phone', '+33612345678').first()).fields), { ville: 'Paris' })
  })

  test('a template written with a variable and its fallback, counted and previewed for no one and for a contact', async ({ assert }) => {
    await fetch(gatewayUrl('/api/v1/contacts'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': testKeys.admin },
      body: JSON.stringify({ phone: '+33612345678', firstName: 'Ada', fields: { city: 'Paris' } }),
    })
    await signInAs(page, 'operator')
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('menuitem', { name: 'Templates' }).click()
    await page.getByRole('button', { name: 'New template' }).click()
    await page.getByRole('heading', { name: 'Template', level: 1 }).waitFor()
    await page.getByLabel('Name', { exact: true }).fill('Welcome')
    await page.getByLabel('Text').fill('Hi ')
    await page.getByLabel('Fallback for the next variable').fill('there')
    await page.getByRole('group', { name: 'Insert a variable' }).getByRole('button', { name: 'firstName' }).click()
    await page.getByLabel('Text').press('End')
    await page.getByLabel('Text').pressSequentially(', see you in ')
    await page.getByLabel('Fallback for the next variable').fill('')
    await page.getByRole('group', { name: 'Insert a variable' }).getByRole('button', { name: 'city' }).click()
    assert.equal(await page.getByLabel('Text').inputValue(), 'Hi {{firstName|there}}, see you in {{city}}')
    await page.getByTestId('counter-segments').getByText('1 SMS').waitFor()
    const preview = page.getByTestId('template-preview')
    await preview.getByText('Hi there, see you in').waitFor()
    await preview.getByText('No value and no fallback: city').waitFor()
    await page.getByLabel('Preview for contacts (up to 3)').fill('Ada')
    await page.getByRole('button', { name: /Add Ada/ }).click()
    await preview.getByText('Hi Ada, see you in Paris').waitFor()
    await page.getByRole('button', { name: 'Save' }).click()
    await page.getByText('Saved.').waitFor()
    await screenshotsAtBothWidths(page, 'template-editor')
    const saved = await db.from('message_templates').where('name', 'Welcome').first()
    assert.equal(saved.body, 'Hi {{firstName|there}}, see you in {{city}}')
    await page.getByRole('link', { name: '← Templates' }).click()
    await page.locator('tr[data-template="Welcome"]').getByText('1 SMS · GSM-7').waitFor()
  })
})
