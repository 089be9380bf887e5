import type { Page } from 'playwright-core'
import { testKeys } from '#tests/helpers/callers'
import { gatewayUrl } from './browser.js'

/** Queues one message through the API as an integration would; answers its id. */
export async function queueThroughApi(send: Record<string, unknown>): Promise<string> {
  const response = await fetch(gatewayUrl('/api/v1/messages'), {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': testKeys.admin },
    body: JSON.stringify({ body: 'Your table is ready', ...send }),
  })
  if (response.status !== 202) throw new Error(`POST /messages answered ${response.status}: ${await response.text()}`)
  return ((await response.json()) as { accepted: Array<{ id: string }> }).accepted[0].id
}

/** A pairing code, made through the API as an operator's integration would. */
export async function pairingCodeThroughApi(): Promise<string> {
  const response = await fetch(gatewayUrl('/api/v1/devices/pairing-codes'), { method: 'POST', headers: { 'x-api-key': testKeys.admin } })
  if (response.status !== 201) throw new Error(`POST /devices/pairing-codes answered ${response.status}`)
  return ((await response.json()) as { code: string }).code
}

/** The list's row of a message. */
export const rowOf = (page: Page, id: string) => page.locator(`tr[data-message-id="${id}"]`)

/** Waits until the row of a message shows a status (as the API names it). */
export const rowShows = (page: Page, id: string, status: string) => rowOf(page, id).locator(`[data-status="${status}"]`).waitFor()
