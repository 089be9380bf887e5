import { join } from 'node:path'
import { existsSync } from 'node:fs'
import { mkdir } from 'node:fs/promises'
import app from '@adonisjs/core/services/app'
import db from '@adonisjs/lucid/services/db'
import type { Group } from '@japa/runner/core'
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core'
import type { Role } from '#core/http/access'
import { SignInAttempts } from '#modules/auth/services/sign_in_throttle'
import { TEST_PASSWORD, accountWithRole, useTestKeys } from '#tests/helpers/callers'

/**
 * Debian's Chromium (`apt-get install chromium`), never a browser download. The flags keep it
 * from reaching the network on its own (a closed network refuses its background calls); --no-sandbox because CI runs
 * it as root.
 */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(app.publicPath('index.html'))) {
    throw new Error('The dashboard is not built: run `npm run build:dashboard` first (npm test does)')
  }
  const executablePath = process.env.CHROMIUM_PATH || '/usr/bin/chromium'
  if (!existsSync(executablePath)) throw new Error(`No Chromium at ${executablePath}: apt-get install -y chromium, or set CHROMIUM_PATH`)
  return chromium.launch({
    executablePath,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  })
}

export const gatewayUrl = (path = '/') => `${process.env.GATEWAY_PUBLIC_URL}${path}`

export const DESKTOP = { width: 1280, height: 800 }
export const PHONE = { width: 360, height: 740 }

/**
 * Saves the page as <name>-<width>.png: into docs/screenshots/ (for the README and
 * docs/dashboard.md) when UPDATE_SCREENSHOTS=1, else beside the run's data folder, so a plain
 * `npm test` leaves the working tree as it was (the pages show times that change every run).
 */
export async function screenshot(page: Page, name: string) {
  const folder = process.env.UPDATE_SCREENSHOTS === '1' ? app.makePath('docs', 'screenshots') : join(process.env.GATEWAY_DATA_DIR!, 'screenshots')
  await mkdir(folder, { recursive: true })
  // The layout scrolls inside its own container, which fullPage does not unroll: the viewport
  // grows to the tallest content for the picture, then returns to its size.
  const viewport = page.viewportSize()!
  const contentHeight = Number(await page.evaluate('Math.max(...Array.from(document.querySelectorAll("*"), (element) => element.scrollHeight))'))
  if (contentHeight > viewport.height) {
    await page.setViewportSize({ width: viewport.width, height: contentHeight })
    await page.waitForTimeout(300) // charts redraw at the new size
  }
  await page.screenshot({ path: `${folder}/${name}-${viewport.width}.png`, fullPage: true, animations: 'disabled' })
  if (contentHeight > viewport.height) await page.setViewportSize(viewport)
}

/** The same page at phone width, then back to the desktop. */
export async function screenshotsAtBothWidths(page: Page, name: string) {
  await screenshot(page, name)
  await page.setViewportSize(PHONE)
  await page.waitForTimeout(300) // layout settles: the menu folds into its drawer
  await screenshot(page, name)
  await page.setViewportSize(DESKTOP)
}

/**
 * Fills the sign-in form and submits it, as a person would. No wait afterwards: a refusal is an
 * outcome some tests look for. `next` is the page to land on after signing in.
 */
export async function signInThroughThePage(page: Page, email: string, password: string, next?: string) {
  await page.goto(gatewayUrl(next ? `/sign-in?next=${encodeURIComponent(next)}` : '/sign-in'))
  await page.getByLabel('E-mail address').fill(email)
  await page.getByLabel('Password').fill(password)
  await page.getByRole('button', { name: 'Sign in' }).click()
}

/** Signs in through the form and waits for the Overview it lands on. */
export async function signInToOverview(page: Page, email: string, password: string) {
  await signInThroughThePage(page, email, password)
  await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor()
}

/**
 * The test account of a role (made if missing), signed in to the Overview. The sign-in throttle
 * is emptied first: a suite signs in many times from the one loopback address.
 */
export async function signInAs(page: Page, role: Role) {
  await (await app.container.make(SignInAttempts)).clear()
  const account = await accountWithRole(role)
  await signInToOverview(page, account.email, TEST_PASSWORD)
}

/** What `browserForEachTest` gives a group: its Chromium, and each test's own context and page. */
export interface BrowserTab {
  browser: Browser
  context: BrowserContext
  page: Page
}

/**
 * The prologue the browser groups share: one Chromium for the group (the test API keys set
 * first when `testKeys`), and before each test no session left and the sign-in throttle emptied
 * (a suite signs in many times from one address), then a context of its own (at DESKTOP unless
 * `context` says otherwise) and a page, closed after the test. A group adds its own hooks for
 * the rest: they run after these, and their cleanups before the context closes.
 */
export function browserForEachTest(group: Group, options: { testKeys?: boolean; context?: BrowserContextOptions } = {}): BrowserTab {
  const tab = {} as BrowserTab
  group.setup(async () => {
    if (options.testKeys) await useTestKeys()
    tab.browser = await launchChromium()
    return () => tab.browser.close()
  })
  group.each.setup(async () => {
    await db.from('sessions').delete()
    await (await app.container.make(SignInAttempts)).clear()
    tab.context = await tab.browser.newContext({ viewport: DESKTOP, ...options.context })
    tab.page = await tab.context.newPage()
    return () => tab.context.close()
  })
  return tab
}
