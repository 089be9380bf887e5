import { test } from '@japa/runner'
import db from '@adonisjs/lucid/services/db'
import type { Page } from 'playwright-core'
import { testKeys } from '#tests/helpers/callers'
import { clearMessaging } from '#tests/helpers/messages'
import { PHONE, browserForEachTest, gatewayUrl, signInAs } from './browser.js'
import { queueThroughApi, rowOf } from './helpers_messages.js'

async function viaApi(path: string, body: unknown): Promise<{ id: string }> {
  const response = await fetch(gatewayUrl(path), {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': testKeys.admin },
    body: JSON.stringify(body),
  })
  if (response.status !== 201) throw new Error(`POST ${path} answered ${response.status}: ${await response.text()}`)
  return (await response.json()) as { id: string }
}

/** The ids of the rows of a CSV export the page's Export link downloads, with the page's session. */
async function exportedIds(page: Page): Promise<string[]> {
  const href = await page.getByTestId('export-selection').getAttribute('href')
  const response = await page.request.get(gatewayUrl(href!))
  if (response.status() !== 200) throw new Error(`${href} answered ${response.status()}`)
  return (await response.text()).trim().split('\n').slice(1).map((line) => line.split(',')[0])
}

/** Whether an element is wholly inside the viewport (not cut at an edge, not scrolled away). */
async function whollyInView(page: Page, locator: ReturnType<Page['locator']>): Promise<boolean> {
  const box = await locator.boundingBox()
  const viewport = page.viewportSize()!
  return !!box && box.x >= 0 && box.y >= 0 && box.x + box.width <= viewport.width && box.y + box.height <= viewport.height
}

/** Selecting many on Messages and Contacts (docs/dashboard.md, Selecting many). */
test.group('Selecting many messages and contacts in a real browser', (group) => {
  let page: Page

  const browsing = browserForEachTest(group, { testKeys: true })
  group.each.setup(async () => {
    await clearMessaging()
    await db.from('contact_groups').delete()
    page = browsing.page
  })

  test('an operator ticks the rows shown, from the keyboard too, and deletes them after a dialog saying how many', async ({ assert }) => {
    const ids = [await queueThroughApi({ to: '+33611111111' }), await queueThroughApi({ to: '+33622222222' }), await queueThroughApi({ to: '+33633333333' })]
    await signInAs(page, 'operator')
    await page.goto(gatewayUrl('/messages'))
    await page.getByText('3 messages shown').waitFor()

    // One row from the keyboard: its box takes the focus and Space ticks it.
    await rowOf(page, ids[0]).getByRole('checkbox', { name: `Select message ${ids[0]}` }).focus()
    await page.keyboard.press('Space')
    const bar = page.getByRole('group', { name: 'Selected messages' })
    await bar.getByText('1 message selected').waitFor()
    // Export takes the selection: the one ticked, not the others.
    assert.deepEqual(await exportedIds(page), [ids[0]])
    await page.getByRole('checkbox', { name: 'Select every message shown' }).click()
    await bar.getByText('3 messages selected').waitFor()
    // Every message shown is every match: nothing more to offer.
    assert.equal(await page.getByTestId('select-matching').count(), 0)
    assert.sameMembers(await exportedIds(page), ids)

    await bar.getByRole('button', { name: 'Delete' }).click()
    const dialog = page.getByRole('dialog')
    await dialog.getByText('Delete 3 messages?').waitFor()
    await dialog.getByRole('button', { name: 'Delete' }).click()
    await page.getByRole('status').getByText('Deleted 3 messages.').waitFor()
    await page.getByText('No message yet.').waitFor()
    assert.equal(Number((await db.from('messages').count('* as n').first()).n), 0)
  })

  test('everything matching a filter, past the page shown, is retried: only the failed ones', async ({ assert }) => {
    const numbers = Array.from({ length: 55 }, (_, i) => `+336${String(10_000_000 + i)}`)
    await queueThroughApi({ to: numbers })
    await queueThroughApi({ to: '+447911123456' })
    await db.from('messages').whereIn('phone', numbers).update({ status: 'failed', attempts: 4, error_code: 'NO_SIGNAL', failed_at: new Date().toISOString() })

    await signInAs(page, 'operator')
    await page.goto(gatewayUrl('/messages?status=failed'))
    await page.getByText('50 messages shown, more below').waitFor()
    await page.getByRole('checkbox', { name: 'Select every message shown' }).click()
    const bar = page.getByRole('group', { name: 'Selected messages' })
    await bar.getByText('50 messages selected').waitFor()
    await page.getByRole('button', { name: 'Select everything matching the filters (55)' }).click()
    await bar.getByText('All 55 messages matching the filters are selected').waitFor()
    // Export takes the filters: the 55 failed, not the queued one.
    const exported = await exportedIds(page)
    assert.lengthOf(exported, 55)
    assert.includeMembers((await db.from('messages').where('status', 'failed').select('id')).map((row) => String(row.id)), exported)

    await bar.getByRole('button', { name: 'Retry' }).click()
    const dialog = page.getByRole('dialog')
    await dialog.getByText('Retry 55 messages?').waitFor()
    await dialog.getByRole('button', { name: 'Retry' }).click()
    await page.getByRole('status').getByText('Queued 55 messages again.').waitFor()
    assert.equal(Number((await db.from('messages').where('status', 'failed').count('* as n').first()).n), 0)
    assert.equal(Number((await db.from('messages').where('status', 'queued').count('* as n').first()).n), 56)
  })

  test('contacts: an operator adds the ticked ones to a group, then opts one out; a viewer is offered neither', async ({ assert }) => {
    const ada = await viaApi('/api/v1/contacts', { phone: '+33612345678', firstName: 'Ada', lastName: 'Lovelace' })
    const grace = await viaApi('/api/v1/contacts', { phone: '+447911123456', firstName: 'Grace', lastName: 'Hopper' })
    await viaApi('/api/v1/contacts', { phone: '+4915112345678', firstName: 'Alan', lastName: 'Turing' })
    const vip = await viaApi('/api/v1/groups', { name: 'VIP' })
    const waiting = await queueThroughApi({ to: '+447911123456' })

    await signInAs(page, 'operator')
    await page.goto(gatewayUrl('/contacts'))
    await page.getByRole('cell', { name: 'Ada Lovelace', exact: true }).waitFor()
    await page.getByRole('checkbox', { name: 'Select Ada Lovelace' }).click()
    await page.getByRole('checkbox', { name: 'Select Grace Hopper' }).click()
    const bar = page.getByRole('group', { name: 'Selected contacts' })
    await bar.getByText('2 contacts selected').waitFor()
    // Without a group chosen, the bar says so where the action was.
    await bar.getByRole('button', { name: 'Add to group' }).click()
    await page.getByRole('alert').getByText('Choose a group first.').waitFor()
    await bar.getByLabel('Group').selectOption({ label: 'VIP' })
    await bar.getByRole('button', { name: 'Add to group' }).click()
    const dialog = page.getByRole('dialog')
    await dialog.getByText('Add 2 contacts to VIP?').waitFor()
    await dialog.getByRole('button', { name: 'Add' }).click()
    await page.getByRole('status').getByText('Added 2 contacts to VIP.').waitFor()
    const members = await db.from('contact_group_members').where('group_id', vip.id).select('contact_id')
    assert.sameMembers(members.map((row) => String(row.contact_id)), [ada.id, grace.id])

    await page.getByRole('checkbox', { name: 'Select Grace Hopper' }).click()
    await page.getByRole('group', { name: 'Selected contacts' }).getByRole('button', { name: 'Opt out' }).click()
    await page.getByRole('dialog').getByText('Opt out 1 contact?').waitFor()
    await page.getByRole('dialog').getByRole('button', { name: 'Opt out' }).click()
    await page.getByRole('status').getByText('Opted out 1 contact.').waitFor()
    await page.getByRole('row', { name: /Grace Hopper/ }).getByText('Opted out').waitFor()
    assert.deepInclude(await db.from('messages').where('id', waiting).first(), { status: 'cancelled', error_code: 'CONTACT_BLACKLISTED' })

    await browsing.context.clearCookies()
    await signInAs(page, 'readonly')
    await page.goto(gatewayUrl('/contacts'))
    await page.getByRole('cell', { name: 'Ada Lovelace', exact: true }).waitFor()
    assert.equal(await page.getByRole('checkbox').count(), 0)
    await page.goto(gatewayUrl('/messages'))
    await page.getByText('1 message shown').waitFor()
    assert.equal(await page.getByRole('checkbox').count(), 0)
  })

  test('contacts: everything the search matches, past the page shown, is opted out after a dialog saying how many', async ({ assert }) => {
    // 55 Parkers (the list shows 50 at a time) and one other.
    const parkers = Array.from({ length: 55 }, (_, i) => i)
    await db.table('contacts').multiInsert(
      parkers.map((i) => ({ phone: `+336${10_000_000 + i}`, first_name: 'Ann', last_name: `Parker ${i}`, created_at: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString(), updated_at: new Date().toISOString() }))
    )
    const other = await viaApi('/api/v1/contacts', { phone: '+447911123456', firstName: 'Grace', lastName: 'Hopper' })

    await signInAs(page, 'operator')
    await page.goto(gatewayUrl('/contacts'))
    const grace = page.getByRole('cell', { name: 'Grace Hopper', exact: true })
    await grace.waitFor()
    await page.getByLabel('Search contacts').fill('parker')
    await grace.waitFor({ state: 'detached' })
    await page.getByRole('cell', { name: 'Ann Parker 54', exact: true }).waitFor()
    await page.getByRole('checkbox', { name: 'Select every contact shown' }).click()
    const bar = page.getByRole('group', { name: 'Selected contacts' })
    await bar.getByText('50 contacts selected').waitFor()
    await bar.getByRole('button', { name: 'Select every contact matching the search (55)' }).click()
    await bar.getByText('All 55 contacts matching the search are selected').waitFor()
    await bar.getByRole('button', { name: 'Opt out' }).click()
    const dialog = page.getByRole('dialog')
    await dialog.getByText('Opt out 55 contacts?').waitFor()
    await dialog.getByRole('button', { name: 'Opt out' }).click()
    await page.getByRole('status').getByText('Opted out 55 contacts.').waitFor()
    assert.equal(Number((await db.from('contacts').where('blacklisted', true).count('* as n').first()).n), 55)
    assert.isFalse(Boolean((await db.from('contacts').where('id', other.id).first()).blacklisted))
  })

  test('at phone width (360 px) rows are ticked and the bar stays on screen: messages and contacts', async ({ assert }) => {
    await page.setViewportSize(PHONE)
    const ids = [await queueThroughApi({ to: '+33611111111' }), await queueThroughApi({ to: '+33622222222' })]
    await signInAs(page, 'operator')

    await page.goto(gatewayUrl('/messages'))
    await page.getByText('2 messages shown').waitFor()
    const box = rowOf(page, ids[1]).getByRole('checkbox', { name: `Select message ${ids[1]}` })
    assert.isTrue(await whollyInView(page, box))
    await box.click()
    const bar = page.getByRole('group', { name: 'Selected messages' })
    await bar.getByText('1 message selected').waitFor()
    for (const name of ['Delete', 'Retry', 'Clear selection']) assert.isTrue(await whollyInView(page, bar.getByRole('button', { name })), name)
    assert.isTrue(await whollyInView(page, bar.getByRole('link', { name: 'Export CSV' })))
    await bar.getByRole('button', { name: 'Delete' }).click()
    await page.getByRole('dialog').getByText('Delete 1 message?').waitFor()
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click()
    await page.getByRole('status').getByText('Deleted 1 message.').waitFor()
    assert.deepEqual((await db.from('messages').select('id')).map((row) => String(row.id)), [ids[0]])

    // Contacts are cards at this width: each has its box, and the bar follows the page down.
    await db.table('contacts').multiInsert(
      Array.from({ length: 20 }, (_, i) => ({ phone: `+336${20_000_000 + i}`, first_name: 'Card', last_name: `Holder ${i}`, created_at: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString(), updated_at: new Date().toISOString() }))
    )
    await page.goto(gatewayUrl('/contacts'))
    const last = page.getByRole('checkbox', { name: 'Select Card Holder 0', exact: true })
    await last.scrollIntoViewIfNeeded()
    await last.click()
    const contactsBar = page.getByRole('group', { name: 'Selected contacts' })
    await contactsBar.getByText('1 contact selected').waitFor()
    assert.isTrue(await whollyInView(page, contactsBar.getByRole('button', { name: 'Opt out' })))
    // The last card scrolls out from under the docked bar: its box is still reached by a tap.
    await page.getByRole('checkbox', { name: 'Select Card Holder 1', exact: true }).click()
    await contactsBar.getByText('2 contacts selected').waitFor()
    await last.click()
    await contactsBar.getByText('1 contact selected').waitFor()
    assert.isTrue(await whollyInView(page, last))
    await page.getByRole('checkbox', { name: 'Select every contact shown' }).click()
    await contactsBar.getByText('20 contacts selected').waitFor()
    await contactsBar.getByRole('button', { name: 'Opt out' }).click()
    await page.getByRole('dialog').getByText('Opt out 20 contacts?').waitFor()
    await page.getByRole('dialog').getByRole('button', { name: 'Opt out' }).click()
    await page.getByRole('status').getByText('Opted out 20 contacts.').waitFor()
    assert.equal(Number((await db.from('contacts').where('blacklisted', true).count('* as n').first()).n), 20)
  })
})
