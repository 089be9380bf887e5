import { createHmac } from 'node:crypto'
import type { Page } from 'playwright-core'
import { gatewayUrl } from './browser.js'

/** Status and error code of an API call made with a key, as an integration would make it. */
export async function callWithKey(key: string): Promise<string> {
  const response = await fetch(gatewayUrl('/api/v1/devices'), { headers: { 'x-api-key': key } })
  const body = (await response.json()) as { error?: { code: string } }
  return `${response.status}${body.error ? ` ${body.error.code}` : ''}`
}

/** The signature a receiver expects (docs/webhooks.md, Verifying a call). */
export function expectedSignature(secret: string, headers: Record<string, unknown>, rawBody: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${headers['x-timestamp']}.${headers['x-delivery-id']}.${rawBody}`).digest('hex')}`
}

/** The confirm button of the open Naive UI popconfirm (its trigger carries the same name). */
export async function confirm(page: Page, name: string) {
  await page.locator('.n-popconfirm').getByRole('button', { name }).click()
}
