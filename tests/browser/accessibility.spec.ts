import { test } from '@japa/runner'
import db from '@adonisjs/lucid/services/db'
import app from '@adonisjs/core/services/app'
import type { Browser, Page } from 'playwright-core'
import type { Role } from '#core/http/access'
import { SignInAttempts } from '#modules/auth/services/sign_in_throttle'
import { accountWithRole, useTestKeys } from '#tests/helpers/callers'
import { clearMessaging } from '#tests/helpers/messages'
import { DESKTOP, PHONE, gatewayUrl, launchChromium, signInAs } from './browser.js'
import { pagesOfRole } from './helpers_pages.js'
import { queueThroughApi } from './helpers_messages.js'
import { describeFindings, seriousViolations, type AxeFinding } from './helpers_axe.js'

/** Waits until the page has had no API call in flight for a moment: axe sees what it read. */
async function settled(page: Page, inFlight: () => number) {
  let quietSince = Date.now()
  while (Date.now() - quietSince < 300) {
    if (inFlight() > 0) quietSince = Date.now()
    await page.waitForTimeout(25)
  }
}

/** Fails with every finding written out (the assertion's own message would cut it short). */
function assertNone(assert: { fail(message: string): void }, found: Map<string, AxeFinding[]>) {
  const lines = describeFindings(found)
  if (lines.length) assert.fail(`axe-core found ${lines.length} serious or critical violations:\n${lines.join('\n')}`)
}

function countCalls(page: Page) {
  let inFlight = 0
  page.on('request', (request) => void (request.url().includes('/api/v1/') && inFlight++))
  page.on('requestfinished', (request) => void (request.url().includes('/api/v1/') && inFlight--))
  page.on('requestfailed', (request) => void (request.url().includes('/api/v1/') && inFlight--))
  return () => inFlight
}

test.group('Accessibility: axe-core finds nothing serious or critical', (group) => {
  let browser: Browser

  group.setup(async () => {
    await useTestKeys()
    // A gateway without an account opens on its first-use page, not on the sign-in form.
    await accountWithRole('superadmin')
    browser = await launchChromium()
    await clearMessaging()
    // Rows in the lists: a table with rows has more to check than its empty text.
    await queueThroughApi({ to: '+33611111111' })
    await queueThroughApi({ to: '+33622222222', category: 'info' })
    return async () => {
      await browser.close()
      await clearMessaging()
    }
  })
  group.each.setup(async () => {
    await db.from('sessions').delete()
    await (await app.container.make(SignInAttempts)).clear()
  })

  for (const viewport of [DESKTOP, PHONE]) {
    test(`the sign-in page at ${viewport.width} px`, async ({ assert }) => {
      const context = await browser.newContext({ viewport })
      const page = await context.newPage()
      try {
        await page.goto(gatewayUrl('/sign-in'))
        await page.getByRole('button', { name: 'Sign in' }).waitFor()
        const found = new Map<string, AxeFinding[]>([['sign-in', await seriousViolations(page)]])
        assertNone(assert, found)
      } finally {
        await context.close()
      }
    })

    test(`the common dialogs at ${viewport.width} px: a create form with a field error, the pairing dialog`, async ({ assert }) => {
      const context = await browser.newContext({ viewport })
      const page = await context.newPage()
      const found = new Map<string, AxeFinding[]>()
      try {
        await signInAs(page, 'operator')
        await page.goto(gatewayUrl('/contacts'))
        await page.getByRole('heading', { name: 'Contacts', level: 1 }).waitFor()
        await page.getByRole('button', { name: 'New contact' }).click()
        const form = page.getByRole('dialog', { name: 'New contact' })
        await form.getByLabel('Phone number').fill('06 12')
        await form.getByRole('button', { name: 'Create' }).click()
        const phone = form.getByLabel('Phone number')
        await form.locator('[aria-invalid="true"]').waitFor()
        // The error is the field's description: a screen reader says it on reaching the field.
        const describedBy = (await phone.getAttribute('aria-describedby')) ?? ''
        assert.notEqual(describedBy, '', 'the phone field is described by its error')
        const description = await Promise.all(describedBy.split(' ').map((id) => page.locator(`[id="${id}"]`).textContent()))
        assert.match(description.join(' '), /E\.164|possible/)
        found.set(`${viewport.width}px new contact with a field error`, await seriousViolations(page))
        await form.getByRole('button', { name: 'Cancel' }).click()
        await form.waitFor({ state: 'hidden' })

        await page.goto(gatewayUrl('/phones'))
        await page.getByRole('heading', { name: 'Phones', level: 1 }).waitFor()
        await page.getByRole('button', { name: 'Pair a phone' }).click()
        await page.getByRole('dialog', { name: 'Pair a phone' }).getByTestId('pairing-code').waitFor()
        found.set(`${viewport.width}px pairing dialog`, await seriousViolations(page))
      } finally {
        await context.close()
      }
      assertNone(assert, found)
    }).timeout(120_000)

    for (const role of ['superadmin', 'operator', 'readonly'] as const satisfies readonly Role[]) {
      test(`every page of ${role} at ${viewport.width} px`, async ({ assert }) => {
        const context = await browser.newContext({ viewport })
        const page = await context.newPage()
        const inFlight = countCalls(page)
        const found = new Map<string, AxeFinding[]>()
        try {
          await signInAs(page, role)
          // A page of one thing (`campaigns/:id`) needs that thing: its own browser test opens it.
          for (const entry of (await pagesOfRole(role)).filter((candidate) => !candidate.path.includes(':'))) {
            await page.goto(gatewayUrl(`/${entry.path}`))
            await page.getByRole('heading', { name: entry.title, level: 1 }).waitFor()
            await settled(page, inFlight)
            const findings = await seriousViolations(page)
            if (findings.length) found.set(`${role} ${viewport.width}px ${entry.name}`, findings)
            // A page in parts at their own addresses (the Settings sections) is checked part by part.
            const parts = await page.locator('main nav a[href]').evaluateAll((links) => links.map((link) => link.getAttribute('href')!))
            for (const part of parts.filter((href) => href !== new URL(page.url()).pathname)) {
              await page.locator(`main nav a[href="${part}"]`).click()
              await page.waitForURL((url) => url.pathname === part)
              await settled(page, inFlight)
              const partFindings = await seriousViolations(page)
              if (partFindings.length) found.set(`${role} ${viewport.width}px ${part}`, partFindings)
            }
          }
        } finally {
          await context.close()
        }
        assertNone(assert, found)
      }).timeout(240_000)
    }
  }
})
