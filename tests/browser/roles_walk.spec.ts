import { test } from '@japa/runner'
import { join } from 'node:path'
import db from '@adonisjs/lucid/services/db'
import app from '@adonisjs/core/services/app'
import type { Browser, Page } from 'playwright-core'
import type { Role } from '#core/http/access'
import { SignInAttempts } from '#modules/auth/services/sign_in_throttle'
import { TEST_PASSWORD, accountWithRole } from '#tests/helpers/callers'
import { DESKTOP, PHONE, gatewayUrl, launchChromium, signInToOverview } from './browser.js'
import { rolesOfOperations, walkedPages, type WalkedPage } from './helpers_pages.js'

/**
 * Buttons that change something. A read-only account must see none of them; reading, filtering,
 * paging, downloading an export and its own account's password stay open to it.
 */
const ACTION =
  /^(send|create|new|add|pair|delete|remove|retry|save|edit|revoke|rotate|pause|resume|replay|archive|unarchive|pin|unpin|assign|reply|unpair|back up|restore|prepare|cancel|mark|opt|change|reset|enable|disable|import|upload|apply|set|replace|clear(?! filters)|invite)\b/i

/** The page at desktop and at phone width, saved as <path>-<width>.png. */
async function walkScreenshots(page: Page, path: string) {
  for (const viewport of [DESKTOP, PHONE]) {
    await page.setViewportSize(viewport)
    await page.waitForTimeout(200) // the layout settles at the new width
    await page.screenshot({ path: `${path}-${viewport.width}.png`, fullPage: true, animations: 'disabled' })
  }
  await page.setViewportSize(DESKTOP)
}

/** Waits until the page has no API call in flight for a moment: what it shows is what it read. */
async function settled(page: Page, inFlight: () => number) {
  let quietSince = Date.now()
  while (Date.now() - quietSince < 300) {
    if (inFlight() > 0) quietSince = Date.now()
    await page.waitForTimeout(25)
  }
}

test.group('Every page of the dashboard, for every role', (group) => {
  let browser: Browser

  group.setup(async () => {
    browser = await launchChromium()
    return () => browser.close()
  })
  group.each.setup(async () => {
    await db.from('sessions').delete()
    await (await app.container.make(SignInAttempts)).clear()
  })

  for (const role of ['superadmin', 'operator', 'readonly'] as const satisfies readonly Role[]) {
    test(`${role}: the menu lists exactly the pages the role may use, each opens without a refused call, the others are not reachable`, async ({ assert }) => {
      const pages = walkedPages()
      assert.isAbove(pages.length, 1, 'the pages.ts of the page folders were read')
      const operations = await rolesOfOperations()
      const mayUse = (entry: WalkedPage) => {
        const roles = operations.get(entry.needs)
        assert.isDefined(roles, `the operation ${entry.needs} of page ${entry.name} is in the OpenAPI document`)
        return roles!.includes(role)
      }
      const usable = pages.filter(mayUse)
      const account = await accountWithRole(role)

      const context = await browser.newContext({ viewport: DESKTOP })
      const page = await context.newPage()
      const refused: string[] = []
      let inFlight = 0
      page.on('request', (request) => void (request.url().includes('/api/v1/') && inFlight++))
      page.on('requestfinished', (request) => void (request.url().includes('/api/v1/') && inFlight--))
      page.on('requestfailed', (request) => void (request.url().includes('/api/v1/') && inFlight--))
      page.on('response', (response) => {
        const url = new URL(response.url())
        // The sign-in probe (who am I?) answers 401 before signing in, as it should.
        if (url.pathname.startsWith('/api/v1/') && response.status() >= 400 && url.pathname !== '/api/v1/auth/me') {
          refused.push(`${response.request().method()} ${url.pathname} → ${response.status()} on ${new URL(page.url()).pathname}`)
        }
      })
      page.on('pageerror', (error) => refused.push(`script error on ${new URL(page.url()).pathname}: ${error.message}`))

      try {
        await signInToOverview(page, account.email, TEST_PASSWORD)

        const menu = (await page.getByRole('navigation', { name: 'Pages' }).getByRole('menuitem').allTextContents()).map((text) => text.trim())
        assert.deepEqual(menu, usable.filter((entry) => entry.inMenu).map((entry) => entry.title))

        // A page of one thing (`campaigns/:id`) needs that thing: its own browser test opens it.
        for (const entry of usable.filter((candidate) => !candidate.path.includes(':'))) {
          await page.goto(gatewayUrl(`/${entry.path}`))
          await page.getByRole('heading', { name: entry.title, level: 1 }).waitFor()
          await settled(page, () => inFlight)
          // For a person's look at every page as every role (not part of the docs' pictures).
          if (process.env.WALK_SCREENSHOTS) await walkScreenshots(page, join(process.env.WALK_SCREENSHOTS, `${role}-${entry.name}`))
          if (role === 'readonly' && entry.name !== 'account') {
            const buttons = (await page.locator('main').getByRole('button').allTextContents()).map((text) => text.trim())
            assert.deepEqual(buttons.filter((text) => ACTION.test(text)), [], `action buttons on ${entry.title}`)
          }
        }
        for (const entry of pages.filter((candidate) => !usable.includes(candidate) && !candidate.path.includes(':'))) {
          await page.goto(gatewayUrl(`/${entry.path}`))
          await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor()
          assert.equal(new URL(page.url()).pathname, '/', `${entry.title} is not reachable for ${role}`)
        }
        assert.deepEqual(refused, [])
      } finally {
        await context.close()
      }
    })
  }
})
