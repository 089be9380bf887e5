import { test } from '@japa/runner'
import db from '@adonisjs/lucid/services/db'
import type { Page } from 'playwright-core'
import { testKeys, useTestKeys } from '#tests/helpers/callers'
import { clearDevices, pairPhone } from '#tests/helpers/devices'
import { clearMessaging } from '#tests/helpers/messages'
import { browserForEachTest, DESKTOP, gatewayUrl, PHONE, screenshotsAtBothWidths, signInAs } from './browser.js'

/** A contact made through the API, as an integration would. */
async function contactViaApi(fields: Record<string, unknown>): Promise<{ id: string; phone: string }> {
  const response = await fetch(gatewayUrl('/api/v1/contacts'), {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': testKeys.admin },
    body: JSON.stringify(fields),
  })
  if (response.status !== 201) throw new Error(`POST /contacts answered ${response.status}: ${await response.text()}`)
  return (await response.json()) as { id: string; phone: string }
}

async function outgoingPhones(): Promise<string[]> {
  return (await db.from('messages').where('direction', 'out').orderBy('id').select('phone')).map((row) => row.phone as string)
}

const menuEntries = async (page: Page) =>
  (await page.getByRole('navigation', { name: 'Pages' }).getByRole('menuitem').allTextContents()).map((text) => text.trim())

/** The feedback line under the form field a label names. */
const feedbackOf = (page: Page, label: string) =>
  page.locator('.n-form-item', { has: page.getByLabel(label, { exact: true }) }).locator('.n-form-item-feedback')

test.group('Send and Contacts pages in a real browser', (group) => {
  let page: Page

  const browsing = browserForEachTest(group)
  group.each.setup(async () => {
    await clearMessaging()
    await clearDevices()
    await useTestKeys()
    page = browsing.page
  })

  test('the counter shows the encoding and SMS count the gateway then answers, short links included', async ({ assert }) => {
    await signInAs(page, 'operator')
    await page.goto(gatewayUrl('/send'))
    await page.getByRole('heading', { name: 'Send', level: 1 }).waitFor()
    const counter = page.getByTestId('text-counter')
    await counter.getByText('0 characters').waitFor()

    const bodies = [
      { body: 'Your table is ready', shorten: false, expected: ['19 characters', 'GSM-7', '1 SMS'] },
      { body: 'Prix: 5€ {promo} [x]', shorten: false, expected: ['20 characters', 'GSM-7', '1 SMS'] },
      { body: 'a'.repeat(160), shorten: false, expected: ['160 characters', 'GSM-7', '1 SMS'] },
      { body: 'a'.repeat(161), shorten: false, expected: ['161 characters', 'GSM-7', '2 SMS'] },
      { body: 'Merci 😀 à bientôt', shorten: false, expected: ['17 characters', 'UCS-2', '1 SMS'] },
      { body: '😀'.repeat(36), shorten: false, expected: ['36 characters', 'UCS-2', '2 SMS'] },
      // 181 characters as typed (2 SMS); the address becomes one short link, so 1 SMS.
      { body: 'b'.repeat(100) + ' https://shop.example/' + 'p'.repeat(58), shorten: true, expected: null },
    ]
    for (const { body, shorten, expected } of bodies) {
      await page.getByLabel('Numbers').fill('+33612345678')
      await page.getByLabel('Message').fill(body)
      if (shorten) await page.getByLabel(/Shorten links/).check()
      const shown = [
        await counter.getByTestId('counter-characters').innerText(),
        await counter.getByTestId('counter-encoding').innerText(),
        await counter.getByTestId('counter-segments').innerText(),
      ]
      if (expected) assert.deepEqual(shown, expected, body)
      if (body.includes('€')) assert.equal(await counter.getByTestId('counter-septets').innerText(), 'Counted as 25: ^ { } \\ [ ~ ] | € take two places each.')

      const answer = page.waitForResponse((response) => response.url().endsWith('/api/v1/messages') && response.request().method() === 'POST')
      await page.getByRole('button', { name: 'Send', exact: true }).click()
      const [message] = ((await (await answer).json()) as { accepted: Array<{ body: string; encoding: string; segments: number }> }).accepted
      // The gateway's own count of what it stored matches what the page showed before sending.
      assert.deepEqual(shown, [`${[...message.body].length} characters`, message.encoding === 'gsm7' ? 'GSM-7' : 'UCS-2', `${message.segments} SMS`], body)
      if (shorten) {
        assert.notEqual(message.body, body)
        assert.equal(message.segments, 1)
      }
      await page.getByRole('status').getByText('1 message queued').waitFor()
      await page.getByRole('button', { name: 'Send another' }).click()
    }
  })

  test('sends to two typed numbers and a contact found by search; the answer links to each message', async ({ assert }) => {
    await contactViaApi({ phone: '+33611111111', firstName: 'Ada', lastName: 'Lovelace' })
    await contactViaApi({ phone: '+33622222222', firstName: 'Adam', lastName: 'Smith', blacklisted: true })
    await signInAs(page, 'operator')
    await page.goto(gatewayUrl('/send'))
    await page.getByLabel('Numbers').fill('+33612345671\n+33612345672')
    await page.getByLabel('Add contacts').fill('ada')
    await page.getByRole('button', { name: /Add Adam Smith/ }).waitFor()
    assert.isTrue(await page.getByRole('button', { name: /Add Adam Smith/ }).isDisabled(), 'an opted-out contact cannot be picked')
    await page.getByRole('button', { name: /Add Ada Lovelace/ }).click()
    await page.getByLabel('Picked contacts').getByText('Ada Lovelace · +33611111111').waitFor()
    await page.getByText('3 recipients').waitFor()
    await page.getByLabel('Message').fill('Meeting moved to 3pm')
    await page.getByTestId('text-counter').getByText('3 SMS for 3 recipients').waitFor()
    await page.getByLabel('Category').selectOption('info')
    await screenshotsAtBothWidths(page, 'send')

    await page.getByRole('button', { name: 'Send', exact: true }).click()
    await page.getByRole('status').getByText('3 messages queued').waitFor()
    assert.deepEqual(await outgoingPhones(), ['+33612345671', '+33612345672', '+33611111111'])
    const categories = await db.from('messages').distinct('category')
    assert.deepEqual(categories, [{ category: 'info' }])
    const links = page.getByLabel('Queued messages').getByRole('link')
    assert.deepEqual(await links.allTextContents(), ['+33612345671', '+33612345672', '+33611111111'])
    const conversation = await db.from('conversations').where('phone', '+33611111111').first()
    assert.equal(await links.nth(2).getAttribute('href'), `/messages?conversationId=${conversation.id}`)
    await screenshotsAtBothWidths(page, 'send-accepted')
  })

  test('a scheduled send on a chosen phone and SIM, in the browser\'s own time zone', async ({ assert, client }) => {
    const { device } = await pairPhone(client, 'Shop phone', [{ slot: 0, operator: 'Orange' }, { slot: 1, label: 'Work', operator: 'Free' }])
    const paris = await browsing.browser.newContext({ viewport: DESKTOP, timezoneId: 'Europe/Paris' })
    page = await paris.newPage()
    try {
      await signInAs(page, 'operator')
      await page.goto(gatewayUrl('/send'))
      await page.getByLabel('Numbers').fill('+33612345671')
      await page.getByLabel('Message').fill('Your order ships tomorrow')
      assert.isTrue(await page.getByLabel('SIM').isDisabled(), 'no SIM to choose before a phone is')
      await page.getByLabel('Phone').selectOption({ label: 'Shop phone (offline)' })
      await page.getByLabel('SIM').selectOption({ label: 'SIM 2 · Work · Free' })
      await page.getByLabel('Send at (empty: now)').fill('2020-01-15T09:30')
      await page.getByRole('button', { name: 'Schedule', exact: true }).click()
      // SCHEDULED_AT_IN_PAST names its field: the sentence sits under "Send at".
      await page.locator('.field', { has: page.getByLabel('Send at (empty: now)') }).getByText('scheduledAt must be in the future').waitFor()
      await page.getByLabel('Send at (empty: now)').fill('2030-01-15T09:30')
      const answer = page.waitForResponse((response) => response.url().endsWith('/api/v1/messages') && response.request().method() === 'POST')
      await page.getByRole('button', { name: 'Schedule', exact: true }).click()
      const [message] = ((await (await answer).json()) as { accepted: Array<{ scheduledAt: string }> }).accepted
      // 09:30 in Paris in January (UTC+1).
      assert.equal(message.scheduledAt, '2030-01-15T08:30:00.000Z')
      await page.getByRole('status').getByText('1 message queued').waitFor()
      const row = await db.from('messages').where('phone', '+33612345671').first()
      assert.deepInclude(row, { device_id: String(device.id), sim_slot: 1 })
    } finally {
      await paris.close()
    }
  })

  test('INVALID_PHONE points at the typed number it names; an opt-out after picking marks that contact; nothing is queued', async ({ assert }) => {
    const contact = await contactViaApi({ phone: '+33633333333', firstName: 'Grace', lastName: 'Hopper' })
    await signInAs(page, 'operator')
    await page.goto(gatewayUrl('/send'))
    await page.getByLabel('Numbers').fill('+33612345671, 12ab34; +33612345673')
    await page.getByLabel('Message').fill('Hello')
    await page.getByRole('button', { name: 'Send', exact: true }).click()
    await page.getByRole('alert').getByText('Check the fields marked below.').waitFor()
    assert.equal(await feedbackOf(page, 'Numbers').innerText(), 'Number 2 (“12ab34”) is not a valid phone number')
    assert.deepEqual(await outgoingPhones(), [])

    await page.getByLabel('Numbers').fill('+33612345671')
    await page.getByLabel('Add contacts').fill('hopper')
    await page.getByRole('button', { name: /Add Grace Hopper/ }).click()
    // The contact opts out (elsewhere) after being picked: the gateway refuses the send and names it.
    await fetch(gatewayUrl(`/api/v1/contacts/${contact.id}`), {
      method: 'PATCH',
      headers: { 'content-type': 'application/json', 'x-api-key': testKeys.admin },
      body: JSON.stringify({ blacklisted: true }),
    })
    await page.getByRole('button', { name: 'Send', exact: true }).click()
    await page.getByText('The contact marked in red has opted out').waitFor()
    const refused = page.getByLabel('Picked contacts').locator('[data-refused]')
    assert.equal(await refused.innerText(), 'Grace Hopper · +33633333333')
    // The number's earlier error leaves (after Naive's fade-out): nothing now points at Numbers.
    await feedbackOf(page, 'Numbers').waitFor({ state: 'detached', timeout: 5_000 })
    assert.deepEqual(await outgoingPhones(), [])
  })

  test('an operator creates a contact (field error first), edits it, opts it out, searches and deletes it', async ({ assert }) => {
    await contactViaApi({ phone: '+447911123456', firstName: 'Grace', lastName: 'Hopper', company: 'Navy' })
    await signInAs(page, 'operator')
    await page.goto(gatewayUrl('/contacts'))
    await page.getByRole('heading', { name: 'Contacts', level: 1 }).waitFor()
    await page.getByRole('cell', { name: 'Grace Hopper', exact: true }).waitFor()

    await page.getByRole('button', { name: 'New contact' }).click()
    await page.getByLabel('Phone number').fill('06 12')
    await page.getByLabel('First name').fill('Ada')
    await page.getByLabel('Last name').fill('Lovelace')
    await page.getByLabel('Last name').press('Enter')
    await page.locator('.n-form-item', { has: page.getByLabel('Phone number') }).locator('.n-form-item-feedback').getByText(/E\.164|possible/).waitFor()
    await page.getByLabel('Phone number').fill('+33612345678')
    await page.getByLabel('Tags (separated by commas)').fill('vip, paris')
    await page.getByRole('button', { name: 'Create' }).click()
    await page.getByRole('status').getByText('Ada Lovelace created.').waitFor()
    await page.getByRole('cell', { name: 'Ada Lovelace', exact: true }).waitFor()
    assert.deepInclude(await db.from('contacts').where('phone', '+33612345678').first(), { first_name: 'Ada', blacklisted: 0 })

    await page.getByRole('button', { name: 'Edit Ada Lovelace' }).click()
    await page.getByLabel('Company').fill('Analytical Engines')
    await page.getByLabel(/Opted out: never send to this number/).check()
    await page.getByRole('button', { name: 'Save' }).click()
    await page.getByRole('status').getByText('Ada Lovelace saved.').waitFor()
    const row = page.getByRole('row', { name: /Ada Lovelace/ })
    await row.getByText('Opted out').waitFor()
    await row.getByText('Analytical Engines').waitFor()
    assert.deepInclude(await db.from('contacts').where('phone', '+33612345678').first(), { company: 'Analytical Engines', blacklisted: 1 })
    await screenshotsAtBothWidths(page, 'contacts')
    // On a phone the table folds into cards, so the opt-out and the buttons stay in view.
    await page.setViewportSize(PHONE)
    const card = page.getByRole('list', { name: 'Contacts' }).getByRole('listitem').filter({ hasText: 'Ada Lovelace' })
    await card.getByText('Opted out').waitFor()
    assert.isTrue(await card.getByRole('button', { name: 'Edit Ada Lovelace' }).isVisible())
    assert.isFalse(await page.evaluate('document.documentElement.scrollWidth > window.innerWidth'), 'no sideways scrolling at 360 px')
    await page.setViewportSize(DESKTOP)

    await page.getByLabel('Search contacts').fill('navy')
    await page.getByRole('row', { name: /Ada Lovelace/ }).waitFor({ state: 'detached' })
    await page.getByRole('cell', { name: 'Grace Hopper', exact: true }).waitFor()
    await page.getByLabel('Search contacts').fill('6123')
    await page.getByRole('row', { name: /Grace Hopper/ }).waitFor({ state: 'detached' })
    await page.getByRole('cell', { name: 'Ada Lovelace', exact: true }).waitFor()

    // "Send SMS" is offered for a contact that has not opted out, and opens Send with it picked.
    assert.equal(await page.getByRole('link', { name: 'Send SMS to Ada Lovelace' }).count(), 0)
    await page.getByLabel('Search contacts').fill('')
    await page.getByRole('link', { name: 'Send SMS to Grace Hopper' }).click()
    await page.getByRole('heading', { name: 'Send', level: 1 }).waitFor()
    await page.getByLabel('Picked contacts').getByText('Grace Hopper · +447911123456').waitFor()
    await page.goBack()
    await page.getByLabel('Search contacts').fill('6123')
    await page.getByRole('row', { name: /Grace Hopper/ }).waitFor({ state: 'detached' })

    await page.getByRole('button', { name: 'Delete Ada Lovelace' }).click()
    await page.getByRole('button', { name: 'Delete', exact: true }).click()
    await page.getByRole('status').getByText('Ada Lovelace deleted.').waitFor()
    assert.isNull(await db.from('contacts').where('phone', '+33612345678').first())

    // The CSV export downloads with the session: header line and the remaining contact.
    await page.getByLabel('Search contacts').fill('')
    const download = page.waitForEvent('download')
    await page.getByRole('link', { name: 'Export CSV' }).click()
    const csv = await (await download).createReadStream()
    let text = ''
    for await (const chunk of csv) text += chunk
    const [header, ...lines] = text.trim().split('\n')
    assert.equal(header, 'id,phone,firstName,lastName,company,email,notes,tags,blacklisted,createdAt,updatedAt')
    assert.lengthOf(lines, 1)
    assert.include(lines[0], 'Grace,Hopper,Navy')
  })

  test('pages of contacts load with "Load more"', async ({ assert }) => {
    for (let index = 0; index < 55; index++) await contactViaApi({ phone: `+336123456${String(index).padStart(2, '0')}`, firstName: `Person${index}` })
    await signInAs(page, 'operator')
    await page.goto(gatewayUrl('/contacts'))
    await page.getByRole('cell', { name: 'Person54', exact: true }).waitFor()
    assert.equal(await page.locator('tbody tr').count(), 50)
    await page.getByRole('button', { name: 'Load more' }).click()
    await page.getByRole('cell', { name: 'Person0', exact: true }).waitFor()
    assert.equal(await page.locator('tbody tr').count(), 55)
    assert.equal(await page.getByRole('button', { name: 'Load more' }).count(), 0)
  })

  test('a read-only account has no Send page and no contact buttons, but reads and exports contacts', async ({ assert }) => {
    await contactViaApi({ phone: '+33612345678', firstName: 'Ada', lastName: 'Lovelace', blacklisted: true })
    await signInAs(page, 'readonly')
    const menu = await menuEntries(page)
    assert.include(menu, 'Contacts')
    assert.notInclude(menu, 'Send')
    await page.goto(gatewayUrl('/send'))
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor()

    await page.goto(gatewayUrl('/contacts'))
    await page.getByRole('cell', { name: 'Ada Lovelace', exact: true }).waitFor()
    await page.getByRole('row', { name: /Ada Lovelace/ }).getByText('Opted out').waitFor()
    assert.equal(await page.getByRole('button', { name: 'New contact' }).count(), 0)
    assert.equal(await page.getByRole('button', { name: /Edit|Delete/ }).count(), 0)
    assert.equal(await page.getByRole('link', { name: /Send an SMS/ }).count(), 0)
    await page.getByRole('link', { name: 'Export CSV' }).waitFor()
  })
})
