import { readFile } from 'node:fs/promises'
import type { Locator, Page } from 'playwright-core'
import { testKeys } from '#tests/helpers/callers'
import { gatewayUrl } from './browser.js'

export async function menuEntries(page: Page): Promise<string[]> {
  return (await page.getByRole('navigation', { name: 'Pages' }).getByRole('menuitem').allTextContents()).map((text) => text.trim())
}

/** Opens a page from the menu, as a person would (not by typing its address). */
export async function openFromMenu(page: Page, title: string) {
  await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: title, exact: true }).click()
  await page.getByRole('heading', { name: title, level: 1 }).waitFor()
}

/** Clicks what starts a download and answers the file's suggested name and its bytes. */
export async function downloadBy(page: Page, trigger: Locator) {
  const [download] = await Promise.all([page.waitForEvent('download'), trigger.click()])
  const failure = await download.failure()
  if (failure) throw new Error(`The download failed: ${failure}`)
  return { name: download.suggestedFilename(), bytes: await readFile((await download.path())!) }
}

/** An API call as an integration with the admin key makes it. */
export async function adminApi(method: string, path: string, body?: unknown) {
  const response = await fetch(gatewayUrl(`/api/v1${path}`), {
    method,
    headers: { 'x-api-key': testKeys.admin, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await response.text()
  return { status: response.status, body: text ? JSON.parse(text) : null }
}
