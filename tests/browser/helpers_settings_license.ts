import { randomBytes } from 'node:crypto'
import app from '@adonisjs/core/services/app'
import db from '@adonisjs/lucid/services/db'
import type { Page } from 'playwright-core'
import { SettingsStore } from '#core/settings/settings_store'
import { LicenseService } from '#modules/license/services/license_service'
import { testKeys } from '#tests/helpers/callers'
import { gatewayUrl } from './browser.js'

/** Every setting back to its default, the store's cached copy included. */
export async function defaultSettings() {
  await db.from('settings').delete()
  ;(await app.container.make(SettingsStore)).invalidate()
}

/** A gateway that never had a license key: the row removed, and the service reads it again. */
export async function noLicenseKey() {
  await db.from('license_state').delete()
  await (await app.container.make(LicenseService)).load()
}

/**
 * A key sealed with another master key, as after restoring a database without its secret.key:
 * well-formed, but this gateway's key cannot open it.
 */
export async function licenseKeyFromAnotherMasterKey(keyPrefix: string) {
  const part = (bytes: number) => randomBytes(bytes).toString('base64url')
  await db.from('license_state').delete()
  await db.table('license_state').insert({
    id: 1,
    state: 'valid',
    key_sealed: `v1.${part(12)}.${part(16)}.${part(24)}`,
    key_prefix: keyPrefix,
    last_checked_at: null,
    last_answer_at: null,
    updated_at: new Date().toISOString(),
  })
  await (await app.container.make(LicenseService)).load()
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
