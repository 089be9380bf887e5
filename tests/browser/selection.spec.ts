import { test } from '@japa/runner'
import db from '@adonisjs/lucid/services/db'
import app from '@adonisjs/core/services/app'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { SignInAttempts } from '#modules/auth/services/sign_in_throttle'
import { testKeys, useTestKeys } from '#tests/helpers/callers'
import { clearMessaging } from '#tests/helpers/messages'
import { DESKTOP, gatewayUrl, launchChromium, signInAs } from './browser.js'
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

/** Selecting many on Messages and Contacts (docs/dashboard.md, Selecting many). */
test.group('Selecting many messages and contacts in a real browser', (group) => {
  let browser: Browser
  let context: BrowserContext
  let page: Page

  group.setup(async () => {
    await useTestKeys()
    browser = await launchChromium()
    return () => browser.close()
  })
  group.each.setup(async () => {
    await db.from('sessions').delete()
    await (await app.container.make(SignInAttempts)).clear()
    await clearMessaging()
    await db.from('contact_groups').delete()
    context = await browser.newContext({ viewport: DESKTOP })
    page = await context.newPage()
    return () => context.close()
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
    await page.getByRole('checkbox', { name: 'Select every message shown' }).click()
    await bar.getByText('3 messages selected').waitFor()
    // Every message shown is every match: nothing more to offer.
    assert.equal(await page.getByTestId('select-matching').count(), 0)
    await bar.getByText('Export downloads every message, not only the selection').waitFor()

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

    await context.clearCookies()
    await signInAs(page, 'readonly')
    await page.goto(gatewayUrl('/contacts'))
    await page.getByRole('cell', { name: 'Ada Lovelace', exact: true }).waitFor()
    assert.equal(await page.getByRole('checkbox').count(), 0)
    await page.goto(gatewayUrl('/messages'))
    await page.getByText('1 message shown').waitFor()
    assert.equal(await page.getByRole('checkbox').count(), 0)
  })
})
