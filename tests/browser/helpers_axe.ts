import app from '@adonisjs/core/services/app'
import type { Locator, Page } from 'playwright-core'
import { MessageLedger, type PhoneReport } from '#modules/messages/services/message_ledger'
import db from '@adonisjs/lucid/services/db'
import { testKeys } from '#tests/helpers/callers'
import { clearDevices } from '#tests/helpers/devices'
import { clearAutomation } from '#tests/helpers/automation'
import { clearWebhooks } from '#tests/helpers/webhooks'
import { clearCampaigns } from '#tests/functional/campaigns/campaign_helpers'
import { PhoneAgent } from '../../agent/src/phone_agent.js'
import { SimulatorDriver } from '../../agent/src/drivers/simulator.js'
import { gatewayUrl } from './browser.js'
import { queueThroughApi } from './helpers_messages.js'

/** One serious or critical finding of axe-core: its rule and the elements it names. */
export interface AxeFinding {
  rule: string
  impact: string
  targets: string[]
}

interface AxeResults {
  violations: Array<{ id: string; impact: string | null; nodes: Array<{ target: unknown[] }> }>
}

/**
 * Waits until the page draws what it read as it will stay: no list dimmed under its spinner or
 * its table's loading state while a read is under way (Naive UI's `n-spin-content--spinning`
 * and `n-data-table--loading`, drawn at half opacity), and no transition still running (a list
 * fading back in once its read has answered, a dialog fading in). axe measures colours as drawn:
 * a table's header caught half-faded, when a busy machine answers a page's read late, reads as
 * low contrast. Endless animations (a spinner's turn) are not waited for.
 */
export async function drawnAtRest(page: Page, timeout = 15_000) {
  const dimmed = '.n-spin-content--spinning, .n-data-table--loading'
  await page.waitForFunction(`!document.querySelector(${JSON.stringify(dimmed)})`, undefined, { timeout }).catch(async () => {
    throw new Error(`${page.url()} still shows a list being read after ${timeout} ms`)
  })
  await page.evaluate(`Promise.all(
    document.getAnimations()
      .filter((animation) => animation.effect?.getComputedTiming().iterations !== Infinity)
      .map((animation) => animation.finished.catch(() => undefined))
  )`)
}

/**
 * axe-core's serious and critical violations on what the page shows once drawn at rest
 * (`drawnAtRest`). The script is the installed package's own build, put into the page once per
 * document; moderate and minor findings are left out (the aim of docs/dashboard.md
 * "Accessibility" is none serious or worse).
 */
export async function seriousViolations(page: Page): Promise<AxeFinding[]> {
  await drawnAtRest(page)
  if (!(await page.evaluate('typeof window.axe !== "undefined"'))) {
    await page.addScriptTag({ path: app.makePath('node_modules', 'axe-core', 'axe.min.js') })
  }
  const results = (await page.evaluate(`axe.run(document, { resultTypes: ['violations'] })`)) as AxeResults
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => ({
      rule: violation.id,
      impact: violation.impact!,
      targets: violation.nodes.map((node) => node.target.map(String).join(' >> ')),
    }))
}

/** The findings of several views as lines a reader can act on: view, rule, impact, elements. */
export function describeFindings(found: Map<string, AxeFinding[]>): string[] {
  const lines: string[] = []
  for (const [view, findings] of found) {
    for (const finding of findings) lines.push(`${view}: ${finding.rule} (${finding.impact}) at ${finding.targets.join(' | ')}`)
  }
  return lines
}

/** An API call with the admin key that must succeed; answers its body. */
async function seedApi(method: string, path: string, body?: unknown): Promise<any> {
  const response = await fetch(gatewayUrl(`/api/v1${path}`), {
    method,
    headers: { 'x-api-key': testKeys.admin, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await response.text()
  if (response.status >= 400) throw new Error(`${method} ${path} answered ${response.status}: ${text}`)
  return text ? JSON.parse(text) : null
}

/** What `fullGateway` made, for the walks that open one thing (a campaign, a rule, a phone). */
export interface FullGateway {
  phoneName: string
  /** The seeded thing of each page of one thing, by the page's name. */
  ids: Record<string, string>
  messageId: string
  agent: PhoneAgent
}

/**
 * A gateway in use, as the pages look on a working day: the axe walk over nearly empty pages
 * misses what only rows, cards and charts draw (a phone's SIM switches, wide tables, charts).
 * Everything goes in through the API, as an integration and the phone would; the outcomes of
 * the messages are the phone's reports, given to the message ledger.
 */
export async function fullGateway(): Promise<FullGateway> {
  const phoneName = 'Shop phone'
  const driver = new SimulatorDriver({
    sims: [
      { slot: 0, label: 'Work', operator: 'Orange' },
      { slot: 1, label: 'Private', operator: 'Free' },
    ],
    battery: { level: 64, charging: true },
    signal: 3,
  })
  const code = (await seedApi('POST', '/devices/pairing-codes')).code as string
  const paired = await PhoneAgent.pair(gatewayUrl(''), code, { name: phoneName, sims: driver.sims() })
  const agent = new PhoneAgent({ gatewayUrl: gatewayUrl(''), credential: paired.credential, driver })
  await agent.connect()
  try {
    return await fill(agent, phoneName, Number(paired.device.id))
  } catch (error) {
    await agent.disconnect() // else the test process never ends
    throw error
  }
}

async function fill(agent: PhoneAgent, phoneName: string, deviceId: number): Promise<FullGateway> {

  const group = await seedApi('POST', '/groups', { name: 'Regulars', description: 'Customers who come back' })
  const contacts = []
  for (const [index, firstName] of ['Léa', 'Marc', 'Inès', 'Paul'].entries()) {
    contacts.push(await seedApi('POST', '/contacts', { phone: `+3361000000${index}`, firstName, lastName: 'Martin', email: `${firstName.toLowerCase().normalize('NFD').replace(/\p{M}/gu, '')}@example.com` }))
  }
  await seedApi('POST', `/groups/${group.id}/members`, { contactIds: contacts.map((contact) => contact.id) })
  const template = await seedApi('POST', '/templates', { name: 'Table ready', body: 'Hi {{firstName|there}}, your table is ready.' })
  const rule = await seedApi('POST', '/rules', {
    name: 'Opening hours',
    conditions: [{ type: 'text', match: 'first_word', value: 'hours' }],
    actions: [{ type: 'reply', text: 'Open 9-18' }],
  })
  // Subscribed before the messages go: their events make the webhook's deliveries.
  await seedApi('POST', '/webhooks', { name: 'Shop backend', url: 'https://crm.example.com/hooks/sms', events: ['message.sent', 'message.delivered', 'message.failed'] })
  const campaign = await seedApi('POST', '/campaigns', { name: 'Spring sale', body: 'Hi {{firstName|there}}, 20% off until Sunday.', audience: { groupIds: [group.id] } })

  const ids: number[] = []
  for (let index = 0; index < 12; index++) {
    ids.push(Number(await queueThroughApi({ to: `+336200000${String(index).padStart(2, '0')}`, deviceId: String(deviceId), simSlot: index % 2, category: index % 3 ? 'info' : 'transactional' })))
  }
  const ledger = await app.container.make(MessageLedger)
  const now = Date.now()
  const at = (seconds: number) => new Date(now + seconds * 1000)
  await ledger.storeOrders(ids.map((messageId, index) => ({ messageId, deviceId, simSlot: index % 2, text: 'Your table is ready' })), at(1))
  const reports: PhoneReport[] = ids.flatMap((messageId, index): PhoneReport[] => {
    if (index % 5 === 4) return [{ kind: 'failed', deviceId, messageId, at: at(3), errorCode: 'NO_SERVICE', maxAttempts: 1, retryable: false }]
    const sent: PhoneReport = { kind: 'sent', deviceId, messageId, at: at(1.5) }
    return index % 4 === 3 ? [sent] : [sent, { kind: 'delivered', deviceId, messageId, at: at(20) }]
  })
  await (await ledger.recordReports(reports)).announce()
  return { phoneName, ids: { campaign: String(campaign.id), rule: String(rule.id), group: String(group.id), template: String(template.id) }, messageId: String(ids[0]), agent }
}

/** Empties what `fullGateway` fills, before (a name left by another spec would be taken) and after. */
export async function clearGateway() {
  await clearCampaigns() // and the messages, contacts and groups
  await db.from('message_templates').delete()
  await clearAutomation()
  await clearWebhooks()
  await clearDevices()
}

/** A control's key in the page: its tag, role and name, and the row it stands in. */
const CONTROL_KEY = `((element) => {
  const row = element.closest('tr')
  return [element.tagName, element.getAttribute('role'), element.getAttribute('aria-label') || (element.textContent || '').trim(), row ? Array.from(row.attributes, (attribute) => attribute.name + '=' + attribute.value).join(' ') : ''].join('|')
})`

/**
 * What the keyboard never reaches on the page as it shows now: presses Tab up to `presses`
 * times (stopping once the focus has gone round) and answers the visible, enabled controls
 * that never held the focus (see `unreached`).
 */
export async function neverFocused(page: Page, presses = 200): Promise<string[]> {
  await page.evaluate(`(() => {
    window.__focused = new Set()
    window.__focusedKeys = new Set()
    document.addEventListener('focusin', (event) => {
      const target = event.composedPath()[0]
      window.__focused.add(target)
      window.__focusedKeys.add(${CONTROL_KEY}(target))
    }, true)
    document.activeElement?.blur?.()
  })()`)
  let seen = -1
  for (let press = 1; press <= presses; press++) {
    await page.keyboard.press('Tab')
    if (press % 25 === 0) {
      const now = Number(await page.evaluate('window.__focused.size'))
      if (now === seen) break
      seen = now
    }
  }
  return unreached(page, 'body')
}

/**
 * A dialog used from the keyboard alone, opened by `opener` (given the focus, then Enter), as
 * docs/dashboard.md "Accessibility" asks: the focus moves into the dialog, Tab keeps it there
 * and reaches every control in it, Escape closes it and the focus is back on the opener.
 * Answers what went wrong, a sentence each (none: all is well).
 */
export async function dialogKeyboardProblems(page: Page, opener: Locator, presses = 40): Promise<string[]> {
  const problems: string[] = []
  await opener.focus()
  await page.keyboard.press('Enter')
  const dialog = page.locator('[role="dialog"], [role="alertdialog"]').last()
  await dialog.waitFor()
  // Naive UI moves the focus once its opening transition is over.
  const focusInside = () => dialog.evaluate((element) => element.contains(element.ownerDocument.activeElement))
  const movedIn = await waitUntil(focusInside)
  if (!movedIn) problems.push(`the focus stays outside the dialog when it opens (on ${await describeActive(page)})`)
  await dialog.evaluate((element) => {
    element.setAttribute('data-keyboard-dialog', '')
    ;(element.ownerDocument.defaultView as any).__focused = new Set([element.ownerDocument.activeElement])
  })
  const left = new Set<string>()
  for (let press = 1; press <= presses; press++) {
    await page.keyboard.press('Tab')
    const outside = await dialog.evaluate((element) => {
      const active = element.ownerDocument.activeElement
      ;(element.ownerDocument.defaultView as any).__focused.add(active)
      return !element.contains(active)
    })
    if (outside) left.add(await describeActive(page))
  }
  for (const where of left) problems.push(`Tab leaves the dialog for ${where}`)
  for (const control of await unreached(page, '[data-keyboard-dialog]')) problems.push(`Tab never reaches ${control}`)
  await page.keyboard.press('Escape')
  const closed = await dialog.waitFor({ state: 'hidden', timeout: 3000 }).then(
    () => true,
    () => false
  )
  if (!closed) {
    problems.push('Escape leaves the dialog open')
    return problems
  }
  const back = await waitUntil(() => opener.evaluate((element) => element.contains(element.ownerDocument.activeElement)))
  if (!back) problems.push(`the focus does not return to the opener after Escape (on ${await describeActive(page)})`)
  return problems
}

async function waitUntil(condition: () => Promise<boolean>, timeoutMs = 2000): Promise<boolean> {
  const until = Date.now() + timeoutMs
  while (!(await condition())) {
    if (Date.now() > until) return false
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return true
}

async function describeActive(page: Page): Promise<string> {
  return String(
    await page.evaluate(`(() => {
      const element = document.activeElement
      if (!element || element === document.body) return 'the page itself'
      const name = (element.getAttribute('aria-label') || element.textContent || '').trim().replace(/\\s+/g, ' ').slice(0, 40)
      return element.tagName.toLowerCase() + ' "' + name + '"'
    })()`)
  )
}

/**
 * The visible, enabled controls inside `root` that never held the focus since `window.__focused`
 * was set up, each as `tag[role] "name"`. Controls are buttons, links, fields, and what Naive UI
 * draws as one (switches, checkboxes, selects); a box drawn clickable (a pointer cursor) with no
 * control in or around it counts too, since that is how a control only a mouse can use looks. A
 * group of radio buttons is one stop (the arrow keys move inside it); a control kept out of the
 * tab order on purpose (`tabindex="-1"`, as a number input's minus and plus, whose arrow keys do
 * the same) is left out.
 */
async function unreached(page: Page, root: string): Promise<string[]> {
  return (await page.evaluate(`(() => {
    const CONTROLS = 'a[href], button, input:not([type="hidden"]), select, textarea, [role="switch"], [role="button"], [role="link"], [role="checkbox"], [role="radio"], [role="tab"], [role="menuitem"], [role="combobox"], [contenteditable="true"]'
    const scope = document.querySelector(${JSON.stringify(root)})
    const focused = Array.from(window.__focused)
    const visible = (element) => {
      const box = element.getBoundingClientRect()
      return box.width > 0 && box.height > 0 && element.checkVisibility({ visibilityProperty: true, opacityProperty: true })
    }
    const usable = (element) =>
      visible(element) && !element.closest('[disabled], [aria-disabled="true"], [aria-hidden="true"], [inert], .n-button--disabled, .n-switch--disabled, .n-checkbox--disabled, .n-radio--disabled, .n-base-selection--disabled, .n-input--disabled') &&
      element.getAttribute('tabindex') !== '-1'
    // A list drawn as it scrolls (the Messages table) draws a row again as a new element once
    // the focus has gone round: the row's control was reached if its key was.
    const keys = window.__focusedKeys ?? new Set()
    const reached = (element) => keys.has((${CONTROL_KEY})(element)) || focused.some((target) => target && (target === element || element.contains(target) || target.contains(element)))
    const candidates = Array.from(scope.querySelectorAll(CONTROLS)).filter(usable)
    // Boxes drawn clickable with no control in or around them.
    for (const element of scope.querySelectorAll('*')) {
      if (getComputedStyle(element).cursor !== 'pointer' || (element.parentElement && getComputedStyle(element.parentElement).cursor === 'pointer')) continue
      if (element.closest(CONTROLS) || element.querySelector(CONTROLS) || element.closest('label') || element.matches('label') || element.tabIndex >= 0) continue
      if (usable(element)) candidates.push(element)
    }
    const groups = new Map()
    const missing = []
    for (const element of candidates) {
      const radioGroup = element.matches('input[type="radio"]') ? 'name:' + element.name : element.matches('[role="radio"]') ? element.closest('[role="radiogroup"]') : null
      if (radioGroup) {
        const group = groups.get(radioGroup) ?? { reached: false, first: element }
        group.reached ||= reached(element)
        groups.set(radioGroup, group)
        continue
      }
      if (!reached(element)) missing.push(element)
    }
    for (const group of groups.values()) if (!group.reached) missing.push(group.first)
    const describe = (element) => {
      const role = element.getAttribute('role')
      const name = (element.getAttribute('aria-label') || element.textContent || element.getAttribute('placeholder') || element.getAttribute('name') || '').trim().replace(/\\s+/g, ' ').slice(0, 60)
      return element.tagName.toLowerCase() + (role ? '[role=' + role + ']' : '') + (element.className && typeof element.className === 'string' ? '.' + element.className.trim().split(/\\s+/).slice(0, 2).join('.') : '') + ' "' + name + '"'
    }
    return missing.map(describe)
  })()`)) as string[]
}
