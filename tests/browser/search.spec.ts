import { test } from '@japa/runner'
import type { Page } from 'playwright-core'
import { testKeys, useTestKeys } from '#tests/helpers/callers'
import { clearMessaging } from '#tests/helpers/messages'
import { browserForEachTest, gatewayUrl, PHONE, signInAs } from './browser.js'
import { queueThroughApi, rowOf } from './helpers_messages.js'

const ADA = '+33612345678'
const BOB = '+447911123456'

/** Rows of the Messages table in order, by message id. */
const messageRows = (page: Page) => page.locator('tr[data-message-id]').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-message-id')))

test.group('Search on Messages and Conversations in a real browser', (group) => {
  let page: Page

  const browsing = browserForEachTest(group)
  group.each.setup(async () => {
    await clearMessaging()
    await useTestKeys()
    page = browsing.page
  })

  async function contact(phone: string, firstName: string, lastName: string) {
    const response = await fetch(gatewayUrl('/api/v1/contacts'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': testKeys.admin },
      body: JSON.stringify({ phone, firstName, lastName }),
    })
    if (response.status !== 201) throw new Error(`POST /contacts answered ${response.status}`)
  }

  test('Messages: a search by a word and by a contact name finds the messages, kept in the address; the Text column shows their first words', async ({ assert }) => {
    const parcel = await queueThroughApi({ to: ADA, body: 'Your parcel is waiting at the post office on Rue de la Paix, bring an ID card' })
    const other = await queueThroughApi({ to: BOB, body: 'Table for two tonight at eight' })
    const again = await queueThroughApi({ to: ADA, body: 'Reminder: the office closes at noon' })
    await contact(ADA, 'Ada', 'Lovelace')

    await signInAs(page, 'readonly')
    await page.goto(gatewayUrl('/messages'))
    await rowOf(page, other).waitFor()
    // The Text column: the first words, cut at a word with "…".
    assert.equal((await rowOf(page, parcel).locator('td.text').innerText()).trim(), 'Your parcel is waiting at the post office on Rue de la Paix,…')
    assert.equal((await rowOf(page, other).locator('td.text').innerText()).trim(), 'Table for two tonight at eight')

    const search = page.getByRole('searchbox', { name: 'Search messages' })
    await search.fill('parcel')
    await page.waitForURL((url) => url.searchParams.get('q') === 'parcel')
    await rowOf(page, other).waitFor({ state: 'detached' })
    assert.deepEqual(await messageRows(page), [parcel])

    // A contact's name: every message to her number, newest first.
    await search.fill('lovelace')
    await page.waitForURL((url) => url.searchParams.get('q') === 'lovelace')
    await rowOf(page, again).waitFor()
    assert.deepEqual(await messageRows(page), [again, parcel])

    // A copied link reopens the search.
    const copied = page.url()
    const second = await browsing.context.newPage()
    await second.goto(copied)
    await rowOf(second, again).waitFor()
    assert.equal(await second.getByRole('searchbox', { name: 'Search messages' }).inputValue(), 'lovelace')
    assert.deepEqual(await messageRows(second), [again, parcel])

    // Nothing found says so; emptied, the list is whole again.
    await search.fill('zebra')
    await page.getByText('No message matches this search.').waitFor()
    await search.fill('')
    await rowOf(page, other).waitFor()
    assert.isNull(new URL(page.url()).searchParams.get('q'))
  }).timeout(90_000)

  test('Conversations: a search by a word of a message and by a contact name; rows show the last message first words', async ({ assert }) => {
    await queueThroughApi({ to: ADA, body: 'Your parcel is waiting' })
    await queueThroughApi({ to: BOB, body: 'Table for two tonight at eight' })
    await queueThroughApi({ to: ADA, body: 'The office closes at noon today' })
    await contact(BOB, 'Bruno', 'Keller')

    await signInAs(page, 'operator')
    await page.goto(gatewayUrl('/conversations'))
    const list = page.getByRole('list', { name: 'Conversations' })
    const row = (phone: string) => list.locator(`[data-conversation="${phone}"]`)
    await row(BOB).waitFor()
    assert.include(await row(ADA).innerText(), 'The office closes at noon today')
    assert.include(await row(BOB).innerText(), 'Table for two tonight at eight')

    const search = page.getByRole('searchbox', { name: 'Search conversations' })
    await search.fill('parcel')
    await page.waitForURL((url) => url.searchParams.get('q') === 'parcel')
    await row(BOB).waitFor({ state: 'detached' })
    await row(ADA).waitFor()

    await search.fill('bruno')
    await row(BOB).waitFor()
    await row(ADA).waitFor({ state: 'detached' })
    // Opening the row found keeps the search in the address.
    await row(BOB).click()
    await page.waitForURL((url) => url.searchParams.get('q') === 'bruno' && url.searchParams.has('c'))

    // At phone width the search box is there too.
    await page.setViewportSize(PHONE)
    await page.goto(gatewayUrl('/conversations?q=parcel'))
    await row(ADA).waitFor()
    assert.equal(await list.locator('[data-conversation]').count(), 1)
  }).timeout(90_000)
})
