import app from '@adonisjs/core/services/app'
import db from '@adonisjs/lucid/services/db'
import type { Page } from 'playwright-core'
import { SettingsStore } from '#core/settings/settings_store'
import { testKeys } from '#tests/helpers/callers'
import { gatewayUrl } from './browser.js'

export async function signInThroughThePage(page: Page, email: string, password: string) {
  await page.goto(gatewayUrl('/sign-in'))
  await page.getByLabel('E-mail address').fill(email)
  await page.getByLabel('Password').fill(password)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor()
}

/** Every setting back to its default, the store's cached copy included. */
export async function defaultSettings() {
  await db.from('settings').delete()
  ;(await app.container.make(SettingsStore)).invalidate()
}

/** A gateway that never had a license key (the row is read on every call, nothing cached). */
export async function noLicenseKey() {
  await db.from('license_state').delete()
}

/** Pairs a phone through the API as its agent would; it stays offline (no connection needed here). */
export async function pairedPhone(name: string, sims: Array<{ slot: 0 | 1; label?: string; operator?: string }>): Promise<string> {
  const codeAnswer = await fetch(gatewayUrl('/api/v1/devices/pairing-codes'), { method: 'POST', headers: { 'x-api-key': testKeys.admin } })
  if (codeAnswer.status !== 201) throw new Error(`pairing code: ${codeAnswer.status} ${await codeAnswer.text()}`)
  const { code } = (await codeAnswer.json()) as { code: string }
  const paired = await fetch(gatewayUrl('/api/v1/devices/pair'), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ code, name, model: 'Pixel 7', appVersion: '1.0.0', sims }),
  })
  if (paired.status !== 201) throw new Error(`pair: ${paired.status} ${await paired.text()}`)
  return ((await paired.json()) as { device: { id: string } }).device.id
}

/** The message Naive UI shows under the form item that holds the labelled input. */
export function feedbackBeside(page: Page, label: string) {
  return page.locator('.n-form-item', { has: page.getByLabel(label, { exact: true }) }).locator('.n-form-item-feedback')
}

export async function menuEntries(page: Page): Promise<string[]> {
  return (await page.getByRole('navigation', { name: 'Pages' }).getByRole('menuitem').allTextContents()).map((text) => text.trim())
}

/** What GET /settings answers now, read with an admin key (not through the page). */
export async function settingsInForce(): Promise<any> {
  const response = await fetch(gatewayUrl('/api/v1/settings'), { headers: { 'x-api-key': testKeys.admin } })
  return response.json()
}
