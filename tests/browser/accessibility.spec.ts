import { test } from '@japa/runner'
import db from '@adonisjs/lucid/services/db'
import app from '@adonisjs/core/services/app'
import type { Browser, Page } from 'playwright-core'
import type { Role } from '#core/http/access'
import { SignInAttempts } from '#modules/auth/services/sign_in_throttle'
import { accountWithRole, useTestKeys } from '#tests/helpers/callers'
import { resetSendingSettings } from '#tests/functional/campaigns/campaign_helpers'
import { DESKTOP, PHONE, gatewayUrl, launchChromium, signInAs } from './browser.js'
import { pagesOfRole, type WalkedPage } from './helpers_pages.js'
import { clearGateway, describeFindings, dialogKeyboardProblems, fullGateway, neverFocused, seriousViolations, type AxeFinding, type FullGateway } from './helpers_axe.js'

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

/** A page of the walk, a page of one thing showing the seeded one, once it shows it. */
async function openPage(page: Page, entry: WalkedPage, full: FullGateway) {
  await page.goto(gatewayUrl(`/${entry.path.replace('/:section?', '').replace(':id', full.ids[entry.name] ?? '')}`))
  if (entry.name === 'campaign') await openedCampaign(page)
  else if (entry.path.includes(':id')) await page.locator('main a.back, main a[href]').first().waitFor()
  else await page.getByRole('heading', { name: entry.title, level: 1 }).waitFor()
}

/** The seeded campaign's page once it shows the campaign, or its error as the test's failure. */
async function openedCampaign(page: Page) {
  await page
    .locator('[data-testid="campaign-status"], main [role="alert"]')
    .first()
    .waitFor({ timeout: 10_000 })
    .catch(async () => {
      throw new Error(`The campaign's page at ${page.url()} shows neither the campaign nor an error: ${(await page.locator('main').innerText()).slice(0, 300)}`)
    })
  const problem = page.locator('main [role="alert"]')
  if (await problem.count()) throw new Error(`The campaign's page shows an error: ${await problem.first().textContent()}`)
}

/**
 * The page's level-1 headings: a view has exactly one (docs/dashboard.md "Accessibility"), the
 * title a screen reader's outline starts from. Answers a sentence when it has none or several.
 */
async function headingOneProblem(page: Page, view: string): Promise<string | null> {
  const titles = (await page.locator('h1, [role="heading"][aria-level="1"]').allInnerTexts()).map((text) => text.trim())
  if (titles.length === 1 && titles[0] !== '') return null
  return `${view}: ${titles.length} level-1 headings (${titles.map((title) => `"${title}"`).join(', ') || 'none'}), not one`
}

/**
 * The calls a page waits on: its API reads, and its live channels' subscriptions, whose answer
 * makes a page read again (a page with a list reads once subscribed, so nothing said between its
 * first read and the subscription is missed; docs/dashboard.md, Live channels). The event stream
 * itself never ends and is not counted.
 */
const awaited = (url: string) => url.includes('/api/v1/') || url.includes('/__transmit/subscribe')

function countCalls(page: Page) {
  let inFlight = 0
  page.on('request', (request) => void (awaited(request.url()) && inFlight++))
  page.on('requestfinished', (request) => void (awaited(request.url()) && inFlight--))
  page.on('requestfailed', (request) => void (awaited(request.url()) && inFlight--))
  return () => inFlight
}

test.group('Accessibility: axe-core finds nothing serious or critical', (group) => {
  let browser: Browser
  let full: FullGateway

  group.setup(async () => {
    await useTestKeys()
    // A gateway without an account opens on its first-use page, not on the sign-in form.
    await accountWithRole('superadmin')
    browser = await launchChromium()
    await clearGateway()
    // The wizard's window note and review read Settings > Sending: the same steps at any hour.
    await resetSendingSettings()
    // Full pages: rows, a phone's card with its SIM switches, charts, a campaign to open.
    full = await fullGateway()
    return async () => {
      await full.agent.disconnect()
      await browser.close()
      await clearGateway()
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
        assert.isNull(await headingOneProblem(page, 'sign-in'))
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
        const headings: string[] = []
        try {
          await signInAs(page, role)
          for (const entry of await pagesOfRole(role)) {
            // A page of one thing opens the seeded one.
            await openPage(page, entry, full)
            await settled(page, inFlight)
            const findings = await seriousViolations(page)
            if (findings.length) found.set(`${role} ${viewport.width}px ${entry.name}`, findings)
            const heading = await headingOneProblem(page, entry.name)
            if (heading) headings.push(heading)
            // A page in parts at their own addresses (the Settings sections) is checked part by part.
            const parts = await page.locator('main nav a[href]').evaluateAll((links) => links.map((link) => link.getAttribute('href')!))
            for (const part of parts.filter((href) => href !== new URL(page.url()).pathname)) {
              await page.locator(`main nav a[href="${part}"]`).click()
              await page.waitForURL((url) => url.pathname === part)
              await settled(page, inFlight)
              const partFindings = await seriousViolations(page)
              if (partFindings.length) found.set(`${role} ${viewport.width}px ${part}`, partFindings)
              const partHeading = await headingOneProblem(page, part)
              if (partHeading) headings.push(partHeading)
            }
          }
        } finally {
          await context.close()
        }
        assertNone(assert, found)
        assert.deepEqual(headings, [], headings.join('\n'))
      }).timeout(240_000)
    }

    test(`the full pages' panels, steps and dialogs at ${viewport.width} px`, async ({ assert }) => {
      const context = await browser.newContext({ viewport })
      const page = await context.newPage()
      const inFlight = countCalls(page)
      const found = new Map<string, AxeFinding[]>()
      const headings: string[] = []
      const check = async (view: string) => {
        await settled(page, inFlight)
        const findings = await seriousViolations(page)
        if (findings.length) found.set(`${viewport.width}px ${view}`, findings)
        const heading = await headingOneProblem(page, view)
        if (heading) headings.push(heading)
      }
      try {
        await signInAs(page, 'superadmin')
        // A message's panel.
        await page.goto(gatewayUrl('/messages'))
        await page.locator(`tr[data-message-id="${full.messageId}"]`).getByRole('link').first().click()
        await page.getByTestId('message-panel').getByTestId('detail-status').waitFor()
        await check('message panel')

        // Every step of the campaign wizard.
        await page.goto(gatewayUrl('/campaigns/new'))
        await page.getByRole('heading', { name: 'New campaign', level: 1 }).waitFor()
        await page.getByLabel('Campaign name').fill('Summer sale')
        await page.getByText('Regulars', { exact: false }).first().click()
        await check('campaign wizard: audience')
        await page.getByRole('button', { name: 'Next: the message' }).click()
        await page.getByLabel('Message').fill('Hi {{firstName|there}}, summer sale.')
        await check('campaign wizard: message')
        await page.getByRole('button', { name: 'Next: when and how fast' }).click()
        await page.getByTestId('window-note').waitFor()
        await check('campaign wizard: when and how fast')
        await page.getByRole('button', { name: 'Next: review' }).click()
        await check('campaign wizard: review')

        // A phone's settings.
        await page.goto(gatewayUrl('/phones'))
        await page.locator(`[data-phone="${full.phoneName}"]`).getByText('Online', { exact: true }).waitFor()
        await page.getByRole('button', { name: `Settings of ${full.phoneName}` }).click()
        await page.getByRole('dialog').waitFor()
        await check('phone settings dialog')

        // A rule's editor.
        await page.goto(gatewayUrl('/rules'))
        await page.getByRole('heading', { name: 'Rules', level: 1 }).waitFor()
        await page.getByRole('link', { name: 'Opening hours' }).first().click()
        await page.getByRole('heading', { name: 'Rule', level: 1 }).waitFor()
        await check('rule editor')

        // The webhook dialog.
        await page.goto(gatewayUrl('/webhooks'))
        await page.getByRole('button', { name: 'New webhook' }).click()
        await page.getByRole('dialog').waitFor()
        await check('webhook dialog')
      } finally {
        await context.close()
      }
      assertNone(assert, found)
      assert.deepEqual(headings, [], headings.join('\n'))
    }).timeout(180_000)
  }

  for (const viewport of [DESKTOP, PHONE]) {
    for (const role of ['superadmin', 'operator', 'readonly'] as const satisfies readonly Role[]) {
      test(`every control of every full page of ${role} at ${viewport.width} px is reached with the Tab key`, async ({ assert }) => {
        const context = await browser.newContext({ viewport })
        const page = await context.newPage()
        const inFlight = countCalls(page)
        const missing: string[] = []
        try {
          await signInAs(page, role)
          for (const entry of await pagesOfRole(role)) {
            await openPage(page, entry, full)
            await settled(page, inFlight)
            for (const control of await neverFocused(page)) missing.push(`${entry.name}: ${control}`)
          }
        } finally {
          await context.close()
        }
        if (missing.length) assert.fail(`${missing.length} controls the Tab key never reaches:\n${missing.join('\n')}`)
      }).timeout(300_000)
    }

    test(`the dialogs from the keyboard at ${viewport.width} px: the focus goes in; Tab stays in and reaches every control; Escape closes and gives the focus back`, async ({ assert }) => {
      const context = await browser.newContext({ viewport })
      const page = await context.newPage()
      const inFlight = countCalls(page)
      const problems: string[] = []
      const dialogOf = async (view: string, opener: ReturnType<Page['getByRole']>) => {
        await settled(page, inFlight)
        for (const problem of await dialogKeyboardProblems(page, opener)) problems.push(`${view}: ${problem}`)
      }
      try {
        await signInAs(page, 'superadmin')
        await page.goto(gatewayUrl('/contacts'))
        await page.getByRole('heading', { name: 'Contacts', level: 1 }).waitFor()
        await dialogOf('new contact', page.getByRole('button', { name: 'New contact' }))

        await page.goto(gatewayUrl('/phones'))
        await page.locator(`[data-phone="${full.phoneName}"]`).getByText('Online', { exact: true }).waitFor()
        await dialogOf('pairing dialog', page.getByRole('button', { name: 'Pair a phone' }))
        await dialogOf('phone settings dialog', page.getByRole('button', { name: `Settings of ${full.phoneName}` }))

        await page.goto(gatewayUrl('/webhooks'))
        await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor()
        await dialogOf('webhook dialog', page.getByRole('button', { name: 'New webhook' }))
      } finally {
        await context.close()
      }
      if (problems.length) assert.fail(`${problems.length} things go wrong in the dialogs from the keyboard:\n${problems.join('\n')}`)
    }).timeout(180_000)
  }
})
