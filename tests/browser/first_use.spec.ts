import { test } from '@japa/runner'
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import app from '@adonisjs/core/services/app'
import type { Browser } from 'playwright-core'
import { startGateway, stop } from '#tests/helpers/gateway_process'
import { DESKTOP, launchChromium } from './browser.js'

/**
 * The "Done when", as a new operator meets the product: a gateway started as its own
 * process on a fresh data folder (real clock, real dispatcher), the first account made on the
 * page it opens on, a simulated phone paired by running the very command the Phones page shows
 * beside the code, an SMS sent from the Send page, and its row turning delivered on the Messages
 * page without a reload. No test hook moves anything: only the page and the phone do.
 */
test.group('First use, from a fresh gateway to a delivered SMS', (group) => {
  let browser: Browser
  let root: string
  const children: ChildProcess[] = []
  let stopPhone = () => {}

  group.setup(async () => {
    browser = await launchChromium()
    return () => browser.close()
  })
  group.each.setup(() => {
    root = mkdtempSync(join(tmpdir(), 'gateway-first-use-'))
    return async () => {
      stopPhone()
      stopPhone = () => {}
      for (const child of children.splice(0)) if (child.exitCode === null) await stop(child, 'SIGTERM')
      rmSync(root, { recursive: true, force: true })
    }
  })

  test('create the first account, pair a phone with the command shown, send, watch it become delivered', async ({ assert }) => {
    const gateway = await startGateway(join(root, 'gateway-data'))
    children.push(gateway.child)
    const address = `http://127.0.0.1:${gateway.port}`
    const context = await browser.newContext({ viewport: DESKTOP })
    const page = await context.newPage()
    try {
      await page.goto(`${address}/`)
      await page.getByRole('heading', { name: 'Create the first account' }).first().waitFor()
      await page.getByLabel('Your name').fill('Owner')
      await page.getByLabel('E-mail address').fill('owner@example.test')
      await page.getByLabel('Password (10 characters or more)').fill('a long enough password')
      await page.getByRole('button', { name: 'Create the account' }).click()
      await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor()

      // No phone yet: the Overview leads to pairing.
      await page.getByRole('link', { name: 'Pair your first phone' }).click()
      const command = (await page.getByTestId('simulator-command').innerText()).trim()
      assert.match(command, new RegExp(`^node ace phone:simulate --gateway ${address} --pair \\S+$`))
      // Run exactly what the page shows, from the gateway's folder, as the operator would.
      // (Its own data folder only so the test leaves the checkout as it was.)
      const phone = spawn(command, {
        shell: true,
        detached: true, // its own process group: the shell and the agent under it stop together
        cwd: app.appRoot.pathname,
        env: { ...process.env, GATEWAY_DATA_DIR: join(root, 'phone-data') },
        stdio: 'ignore',
      })
      stopPhone = () => {
        if (phone.exitCode === null) process.kill(-phone.pid!, 'SIGTERM')
      }
      await page.getByText(/is paired and online\./).waitFor({ timeout: 60_000 })
      await page.getByRole('button', { name: 'Done' }).click()

      await page.getByRole('navigation', { name: 'Pages' }).getByText('Send', { exact: true }).click()
      await page.getByRole('heading', { name: 'Send', level: 1 }).waitFor()
      await page.getByLabel('Numbers').fill('+33612345678')
      await page.getByLabel('Message').fill('Your order is ready')
      await page.getByRole('button', { name: 'Send', exact: true }).click()
      await page.getByRole('link', { name: '+33612345678' }).click()

      await page.getByRole('heading', { name: 'Messages', level: 1 }).waitFor()
      const row = page.locator('tr[data-message-id]')
      await row.locator('[data-status="delivered"]').waitFor({ timeout: 30_000 })
      assert.equal(await row.count(), 1)
    } finally {
      await context.close()
    }
  }).timeout(180_000)
})
