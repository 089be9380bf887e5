import { test } from '@japa/runner'
import type { BrowserContext, Locator, Page } from 'playwright-core'
import type { Role } from '#core/http/access'
import { clearMessaging } from '#tests/helpers/messages'
import { browserForEachTest, gatewayUrl, signInAs } from './browser.js'
import { pagesOfRole } from './helpers_pages.js'
import { queueThroughApi, rowOf } from './helpers_messages.js'

/** The screen the issue asks the superadmin's whole menu to fit, and a small phone's. */
const SCREEN_1280 = { width: 1280, height: 800 }
const PHONE_640 = { width: 360, height: 640 }

const MODIFIER = process.platform === 'darwin' ? 'Meta' : 'Control'

const menuOf = (page: Page) => page.getByRole('navigation', { name: 'Pages' })

/** The addresses the menu's links lead to, in menu order. */
async function menuAddresses(page: Page): Promise<string[]> {
  const hrefs = await menuOf(page).locator('a[href]').evaluateAll((links) => links.map((link) => link.getAttribute('href')!))
  return hrefs.map((href) => new URL(href, gatewayUrl('/')).pathname)
}

/** The group headings the menu shows, in order. */
async function menuHeadings(page: Page): Promise<string[]> {
  return (await menuOf(page).locator('.n-menu-item-group-title').allTextContents()).map((text) => text.trim())
}

/** A link opened with the new-tab modifier: the browser's new page, loaded. */
async function openInNewTab(context: BrowserContext, link: Locator): Promise<Page> {
  const opened = context.waitForEvent('page')
  await link.click({ modifiers: [MODIFIER] })
  const tab = await opened
  await tab.waitForLoadState()
  return tab
}

test.group('Links: the menu and the rows that open something', (group) => {
  let page: Page

  const browsing = browserForEachTest(group, { testKeys: true })
  group.each.setup(async () => {
    page = browsing.page
  })

  for (const role of ['readonly', 'operator', 'superadmin'] as const satisfies readonly Role[]) {
    test(`${role}: every page the role may see is a link of the menu, none other; one opens in a new tab, signed in`, async ({ assert }) => {
      const usable = await pagesOfRole(role)
      const expected = usable.filter((entry) => entry.inMenu).map((entry) => `/${entry.path}`)
      // Pages reached from another one (a campaign) are links of their list pages, not of the menu.
      assert.isAbove(expected.length, 5)

      await page.setViewportSize(SCREEN_1280)
      await signInAs(page, role)
      assert.deepEqual(await menuAddresses(page), expected)
      const groups = [...new Set(usable.filter((entry) => entry.inMenu && entry.group !== 'overview').map((entry) => entry.group))]
      assert.deepEqual(
        (await menuHeadings(page)).map((heading) => heading.toLowerCase()),
        groups,
        'a heading per group the role has a page in, in the registry order'
      )

      // The whole menu fits a 1280×800 screen: its last entry ends above the screen's foot, and
      // its column does not scroll.
      const bottom = await menuOf(page).evaluate((nav) => nav.getBoundingClientRect().bottom)
      assert.isAtMost(bottom, SCREEN_1280.height, `the menu ends at ${bottom} px`)
      const sider = page.locator('.n-layout-sider-scroll-container')
      assert.isFalse(await sider.evaluate((element) => element.scrollHeight > element.clientHeight))
      if (role === 'superadmin') console.log(`  superadmin's menu at 1280×800 ends at ${Math.round(bottom)} px`)

      // A modified click opens the page in a new tab, signed in, and leaves this one where it was.
      const tab = await openInNewTab(browsing.context, menuOf(page).getByRole('link', { name: 'Activity', exact: true }))
      await tab.getByRole('heading', { name: 'Activity', level: 1 }).waitFor()
      assert.equal(new URL(tab.url()).pathname, '/activity')
      await tab.getByRole('link', { name: /^Your account: Test / }).waitFor()
      assert.equal(new URL(page.url()).pathname, '/')
      await tab.close()

      // A plain click navigates in place; the entry of the page reached lights up.
      await menuOf(page).getByRole('link', { name: 'Messages', exact: true }).click()
      await page.getByRole('heading', { name: 'Messages', level: 1 }).waitFor()
      assert.equal(browsing.context.pages().length, 1)
      assert.equal(await menuOf(page).locator('.n-menu-item-content--selected').innerText(), 'Messages')

      // From the keyboard: the link takes the focus, Enter follows it.
      await menuOf(page).getByRole('link', { name: 'Your account', exact: true }).focus()
      await page.keyboard.press('Enter')
      await page.getByRole('heading', { name: 'Your account', level: 1 }).waitFor()
    })
  }

  test('a message row is a link: its address reopens the panel, a new tab opens it there, Enter opens it in place', async ({ assert }) => {
    await clearMessaging()
    const first = await queueThroughApi({ to: '+33611111111' })
    const second = await queueThroughApi({ to: '+33622222222', category: 'info' })
    await signInAs(page, 'readonly')
    await page.goto(gatewayUrl('/messages?category=info'))
    const link = rowOf(page, second).getByRole('link')
    await link.waitFor()
    assert.equal(await rowOf(page, first).count(), 0, 'the filter applies')
    const href = await link.getAttribute('href')
    assert.equal(href, `/messages?category=info&message=${second}`, 'the link keeps the filters')

    // The address, pasted into another tab, opens the list and the message's panel (beside the
    // list at this width).
    const pasted = await browsing.context.newPage()
    await pasted.goto(gatewayUrl(href!))
    const panel = pasted.getByTestId('message-panel')
    await panel.getByText(`Message ${second}`, { exact: true }).waitFor()
    await panel.getByText('+33622222222').first().waitFor()
    await pasted.close()

    // A modified click opens it in a new tab, not here.
    const tab = await openInNewTab(browsing.context, link)
    await tab.getByTestId('message-panel').getByText(`Message ${second}`, { exact: true }).waitFor()
    assert.equal(new URL(page.url()).searchParams.get('message'), null)
    assert.equal(await page.getByTestId('message-panel').count(), 0)
    await tab.close()

    // From the keyboard, in place.
    await link.focus()
    await page.keyboard.press('Enter')
    await page.getByTestId('message-panel').getByText(`Message ${second}`, { exact: true }).waitFor()
    assert.equal(new URL(page.url()).searchParams.get('message'), second)
    assert.equal(await link.getAttribute('aria-current'), 'true')
  })

  test('a conversation row is a link: a new tab opens its thread', async ({ assert }) => {
    await clearMessaging()
    await queueThroughApi({ to: '+33633333333' })
    await signInAs(page, 'operator')
    await menuOf(page).getByRole('link', { name: 'Conversations', exact: true }).click()
    const row = page.locator('a[data-conversation="+33633333333"]')
    assert.match((await row.getAttribute('href'))!, /^\/conversations\?c=\d+$/)
    const tab = await openInNewTab(browsing.context, row)
    await tab.getByRole('region', { name: 'Conversation with +33633333333' }).waitFor()
    assert.equal(new URL(page.url()).searchParams.get('c'), null, 'this tab stays on the inbox')
  })

  test('at 360×640 Sign out is on screen in the drawer without scrolling, a link closes the drawer', async ({ assert }) => {
    await page.setViewportSize(PHONE_640)
    await signInAs(page, 'superadmin')
    await page.getByRole('button', { name: 'Menu' }).click()
    const signOut = page.getByRole('button', { name: 'Sign out' })
    await signOut.waitFor()
    const box = (await signOut.boundingBox())!
    assert.isAtMost(box.y + box.height, PHONE_640.height, 'Sign out sits inside the screen')
    assert.isAtLeast(box.y, 0)
    // The list of pages scrolls on its own: its last entry is below the fold, Sign out is not.
    const last = menuOf(page).getByRole('link', { name: 'Your account', exact: true })
    assert.isAbove((await last.boundingBox())!.y, PHONE_640.height)

    await menuOf(page).getByRole('link', { name: 'Phones', exact: true }).click()
    await page.getByRole('heading', { name: 'Phones', level: 1 }).waitFor()
    await menuOf(page).waitFor({ state: 'hidden' })
    assert.equal(new URL(page.url()).pathname, '/phones')

    await page.getByRole('button', { name: 'Menu' }).click()
    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.getByRole('heading', { name: 'Sign in' }).first().waitFor()
  })
})
