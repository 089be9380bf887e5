import { test } from '@japa/runner'
import db from '@adonisjs/lucid/services/db'
import emitter from '@adonisjs/core/services/emitter'
import type { Page } from 'playwright-core'
import { useManualClock } from '#tests/helpers/clock'
import { answerStatus, clearWebhooks, createWebhook, startReceiver, useWebhookEngine, type Receiver } from '#tests/helpers/webhooks'
import type { ManualClock } from '#core/time/clock'
import { browserForEachTest, gatewayUrl, screenshotsAtBothWidths, signInAs } from './browser.js'
import { confirm, expectedSignature, callWithKey } from './helpers_webhooks_keys.js'

const RETRY_WAITS_MS = [30_000, 120_000, 600_000, 3_600_000]

test.group('Webhooks and API keys in a real browser', (group) => {
  let page: Page
  let clock: ManualClock
  let engine: Awaited<ReturnType<typeof useWebhookEngine>>
  let receiver: Receiver

  const browsing = browserForEachTest(group, { testKeys: true, context: { permissions: ['clipboard-read', 'clipboard-write'] } })
  group.each.setup(async () => {
    await clearWebhooks()
    const manual = useManualClock(new Date())
    clock = manual.clock
    engine = await useWebhookEngine(clock)
    receiver = await startReceiver()
    page = browsing.page
    return async () => {
      await engine.stop()
      await receiver.close()
      manual.restore()
      await clearWebhooks()
    }
  })

  const lowBattery = (id: string) => emitter.emit('device.low_battery', { id, deviceId: id, at: clock.now() })
  const row = (attribute: string, value: string) => page.locator(`tr[${attribute}="${value}"]`)

  test('an operator creates a webhook (secret shown once), sees deliveries and failures live, replays one, pauses and resumes', async ({ assert }) => {
    await signInAs(page, 'operator')
    await page.getByRole('navigation', { name: 'Pages' }).getByText('Webhooks', { exact: true }).click()
    await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor()

    // Create: a field error from the API first, beside its field.
    await page.getByRole('button', { name: 'New webhook' }).click()
    await page.getByLabel('Name').fill('Shop backend')
    await page.getByLabel('URL').fill('ftp://example.com/x')
    await page.getByRole('checkbox', { name: 'device.low_battery' }).click()
    await page.getByLabel('URL').press('Enter')
    const urlFeedback = page.locator('.n-form-item', { has: page.getByLabel('URL') }).locator('.n-form-item-feedback')
    await urlFeedback.getByText('must be a valid URL').waitFor()
    await page.getByLabel('URL').fill(receiver.url)
    await page.getByRole('button', { name: 'Create the webhook' }).click()

    // The secret, once, with a copy button that puts it on the clipboard.
    const secretField = page.getByLabel('Signing secret', { exact: true })
    await secretField.waitFor()
    const secret = await secretField.inputValue()
    assert.isAtLeast(secret.length, 16)
    await page.getByRole('button', { name: 'Copy', exact: true }).click()
    await page.getByRole('button', { name: 'Copied' }).waitFor()
    assert.equal(await page.evaluate('navigator.clipboard.readText()'), secret)
    await page.getByRole('button', { name: 'Done' }).click()
    await row('data-webhook', 'Shop backend').getByText('Active').waitFor()
    assert.equal(await page.getByTestId('secret-once').count(), 0)
    assert.notInclude(await page.content(), secret)
    await screenshotsAtBothWidths(page, 'webhooks')

    // The delivery log of this webhook: an event's delivery shows up live, Delivered.
    await row('data-webhook', 'Shop backend').getByRole('link', { name: 'Deliveries' }).click()
    await page.getByRole('heading', { name: 'Webhook deliveries', level: 1 }).waitFor()
    await page.getByText('No delivery matches these filters.').waitFor()
    await lowBattery('11')
    await engine.settle()
    await page.locator('tr[data-status="success"]').getByText('Delivered').waitFor()
    assert.lengthOf(receiver.calls, 1)
    assert.equal(receiver.calls[0].headers['x-signature'], expectedSignature(secret, receiver.calls[0].headers, receiver.calls[0].rawBody))

    // The receiver fails: the next delivery waits for a retry, then is given up, live.
    receiver.answerWith(answerStatus(503, 'maintenance'))
    await lowBattery('12')
    await engine.settle()
    await page.locator('tr[data-status="pending"]').getByText('1 of 5 attempts').waitFor()
    for (const wait of RETRY_WAITS_MS) {
      await clock.advance(wait)
      await engine.settle()
    }
    const failed = page.locator('tr[data-status="failed"]')
    await failed.getByText('5 of 5 attempts').waitFor()
    await failed.getByText('maintenance').waitFor()

    // The Overview's tile counts it, and follows a new failure live.
    await page.getByRole('navigation', { name: 'Pages' }).getByText('Overview', { exact: true }).click()
    await page.getByTestId('deliveries-failing').getByText('1', { exact: true }).waitFor()
    await lowBattery('13')
    await engine.settle()
    await page.getByTestId('deliveries-retrying').getByText('1 waiting for a retry').waitFor()
    await page.getByTestId('deliveries-failing').getByText('2', { exact: true }).waitFor()

    // Its link lands on the log filtered to failed deliveries; the detail, then a replay.
    receiver.answerWith(answerStatus(200, 'ok'))
    await page.getByRole('link', { name: 'See the failed deliveries' }).click()
    await page.getByRole('heading', { name: 'Webhook deliveries', level: 1 }).waitFor()
    assert.equal(new URL(page.url()).searchParams.get('status'), 'failed')
    assert.equal(await page.getByLabel('Status').inputValue(), 'failed')
    await failed.first().waitFor()
    assert.equal(await page.locator('tr[data-status]').count(), await failed.count())
    await failed.getByRole('button', { name: 'Details' }).click()
    const detail = page.getByTestId('delivery-detail')
    await detail.getByText('HTTP 503').waitFor()
    assert.equal((await page.getByTestId('delivery-attempts').innerText()).trim(), '5 of 5')
    const callsBefore = receiver.calls.length
    await page.getByRole('dialog').getByRole('button', { name: 'Replay' }).click()
    await page.getByText('Replayed: a new delivery of device.low_battery is on its way.').waitFor()
    await engine.settle()
    assert.equal(receiver.calls.length, callsBefore + 1)
    // The whole log: delivered, given up, waiting for a retry, and the replay.
    await page.getByLabel('Status').selectOption('')
    await page.locator('tr[data-status]').nth(3).waitFor()
    await screenshotsAtBothWidths(page, 'webhook-deliveries')
    // The replay's attempt: Delivered, with the same body.
    await page.getByLabel('Status').selectOption('success')
    await page.locator('tr[data-status="success"]').nth(1).waitFor()
    assert.equal(receiver.calls.at(-1)!.rawBody, receiver.calls[1].rawBody)
    assert.notEqual(receiver.calls.at(-1)!.headers['x-delivery-id'], receiver.calls[1].headers['x-delivery-id'])

    // Pause, then resume; a paused webhook's deliveries offer no replay.
    await page.getByRole('link', { name: 'Webhooks', exact: true }).first().click()
    const hook = row('data-webhook', 'Shop backend')
    await hook.getByRole('button', { name: 'Pause' }).click()
    await hook.getByText('Paused').waitFor()
    await page.goto(gatewayUrl('/webhooks/deliveries'))
    await page.locator('tr[data-status]').first().waitFor()
    assert.equal(await page.getByRole('button', { name: 'Replay' }).count(), 0)
    await page.goto(gatewayUrl('/webhooks'))
    await hook.getByRole('button', { name: 'Resume' }).click()
    await hook.getByText('Active').waitFor()
    const [stored] = await db.from('webhooks').select('active')
    assert.equal(stored.active, 1)

    // Edit, then delete with a confirmation.
    await hook.getByRole('button', { name: 'Edit' }).click()
    await page.getByLabel('Name').fill('Shop backend v2')
    await page.getByLabel('Name').press('Enter')
    await row('data-webhook', 'Shop backend v2').waitFor()
    await row('data-webhook', 'Shop backend v2').getByRole('button', { name: 'Delete' }).click()
    await confirm(page, 'Delete')
    await page.getByText('No webhook yet').waitFor()
  })

  test('a webhook disabled after failures is labelled so and can be turned back on', async ({ client }) => {
    const { webhook } = await createWebhook(client, { name: 'Old CRM', url: receiver.url, events: ['device.offline'] })
    await db.from('webhooks').where('id', webhook.id).update({ active: 0, disabled_at: clock.now().toISOString(), consecutive_failures: 100 })
    await signInAs(page, 'superadmin')
    await page.getByTestId('webhooks-switched-off').getByText('1 webhook disabled after failures').waitFor()
    await page.goto(gatewayUrl('/webhooks'))
    const hook = row('data-webhook', 'Old CRM')
    await hook.getByText('Disabled after failures').waitFor()
    await hook.getByText('100 given up in a row').waitFor()
    await hook.getByRole('button', { name: 'Turn back on' }).click()
    await hook.getByText('Active').waitFor()
  })

  test('a superadmin creates, rotates and revokes an API key; each secret is shown once and the revoked key is refused', async ({ assert }) => {
    await signInAs(page, 'superadmin')
    await page.getByRole('navigation', { name: 'Pages' }).getByText('API keys', { exact: true }).click()
    await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor()

    await page.getByRole('button', { name: 'New API key' }).click()
    await page.getByLabel('Name').fill('Shop backend key')
    await page.locator('label.n-radio', { has: page.getByRole('radio', { name: /^send/ }) }).click()
    await page.getByLabel('Name').press('Enter')
    const first = await page.getByLabel('API key', { exact: true }).inputValue()
    assert.equal(await callWithKey(first), '200')
    await page.getByRole('button', { name: 'Done' }).click()
    const key = row('data-api-key', 'Shop backend key')
    await key.getByText('send', { exact: true }).waitFor()
    await key.getByText(`…${first.slice(-4)}`).waitFor()
    assert.equal(await page.getByTestId('secret-once').count(), 0)
    assert.notInclude(await page.content(), first)
    await screenshotsAtBothWidths(page, 'api-keys')

    await key.getByRole('button', { name: 'Rotate' }).click()
    await confirm(page, 'Rotate')
    const second = await page.getByLabel('API key', { exact: true }).inputValue()
    assert.notEqual(second, first)
    // An unknown or revoked key is 403 INVALID_API_KEY; 401 is for a missing one
    // (docs/api-conventions.md, Errors).
    assert.equal(await callWithKey(first), '403 INVALID_API_KEY')
    assert.equal(await callWithKey(second), '200')
    await page.getByRole('button', { name: 'Done' }).click()
    assert.equal(await page.getByTestId('secret-once').count(), 0)

    await key.getByRole('button', { name: 'Revoke' }).click()
    await confirm(page, 'Revoke')
    await key.waitFor({ state: 'detached' })
    assert.equal(await callWithKey(second), '403 INVALID_API_KEY')
  })

  test('a read-only account sees webhooks and deliveries without any action button, and no API keys page', async ({ client, assert }) => {
    const { webhook } = await createWebhook(client, { name: 'Watched hook', url: receiver.url, events: ['device.low_battery'] })
    await lowBattery('21')
    await engine.settle()
    await signInAs(page, 'readonly')
    await page.getByTestId('deliveries-failing').getByText('0', { exact: true }).waitFor()
    const menu = (await page.getByRole('navigation', { name: 'Pages' }).getByRole('menuitem').allTextContents()).map((text) => text.trim())
    assert.includeMembers(menu, ['Webhooks', 'Webhook deliveries'])
    assert.notInclude(menu, 'API keys')

    await page.goto(gatewayUrl('/webhooks'))
    await row('data-webhook', 'Watched hook').getByText('Active').waitFor()
    for (const name of ['New webhook', 'Edit', 'Pause', 'Resume', 'Delete']) assert.equal(await page.getByRole('button', { name }).count(), 0, name)

    await page.goto(gatewayUrl(`/webhooks/deliveries?webhookId=${webhook.id}`))
    await page.locator('tr[data-status="success"]').getByRole('button', { name: 'Details' }).click()
    await page.getByTestId('delivery-detail').waitFor()
    assert.equal(await page.getByRole('button', { name: 'Replay' }).count(), 0)

    await page.goto(gatewayUrl('/api-keys'))
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor()
    // The API agrees with the page: this session may not list keys.
    assert.equal(await page.evaluate(async () => (await fetch('/api/v1/api-keys')).status), 403)
  })
})
