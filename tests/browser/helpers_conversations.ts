import db from '@adonisjs/lucid/services/db'
import type { Page } from 'playwright-core'
import { testKeys } from '#tests/helpers/callers'
import { eventually } from '#tests/helpers/phones'
import { PhoneAgent } from '../../agent/src/phone_agent.js'
import { SimulatorDriver } from '../../agent/src/drivers/simulator.js'
import { gatewayUrl } from './browser.js'

/**
 * A simulated phone, paired through the API with an admin key and connected: `receive` makes an
 * SMS arrive on it and waits until the gateway stored it, as a real phone's report would.
 */
export async function connectedSimulatedPhone() {
  const coded = await fetch(gatewayUrl('/api/v1/devices/pairing-codes'), { method: 'POST', headers: { 'x-api-key': testKeys.admin } })
  if (coded.status !== 201) throw new Error(`pairing code: ${coded.status} ${await coded.text()}`)
  const { code } = (await coded.json()) as { code: string }
  const driver = new SimulatorDriver({ sims: [{ slot: 0, operator: 'Orange' }] })
  const paired = await PhoneAgent.pair(gatewayUrl(''), code, { name: 'Front desk phone', sims: driver.sims() })
  const agent = new PhoneAgent({ gatewayUrl: gatewayUrl(''), credential: paired.credential, driver })
  await agent.connect()
  return {
    agent,
    async receive(from: string, body: string) {
      const before = await inboundCount()
      driver.receive(from, body)
      await eventually(async () => (await inboundCount()) > before)
    },
  }
}

async function inboundCount(): Promise<number> {
  const row = await db.from('messages').where('direction', 'in').count('* as total').first()
  return Number(row.total)
}

export async function conversationOf(phone: string) {
  return db.from('conversations').where('phone', phone).first()
}

/** The phone numbers of the inbox's rows, top to bottom. */
export async function inboxRows(page: Page): Promise<string[]> {
  return page.getByRole('list', { name: 'Conversations' }).locator('[data-conversation]').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-conversation')!))
}

/** The page's own scroll width beyond the viewport: the whole page must never scroll sideways. */
export async function sidewaysOverflow(page: Page): Promise<number> {
  return Number(await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth'))
}
