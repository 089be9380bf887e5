import { test } from '@japa/runner'
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { TermuxDriver } from '../../../agent/src/drivers/termux.js'

/** Fake termux-api commands on PATH: they record their arguments and answer what the test set. */
function fakeTermux() {
  const folder = mkdtempSync(join(tmpdir(), 'fake-termux-'))
  const script = (name: string, body: string) => {
    writeFileSync(join(folder, name), `#!/bin/sh\n${body}\n`)
    chmodSync(join(folder, name), 0o755)
  }
  script('termux-sms-send', `printf '%s\\n' "$@" >> "${folder}/sent.log"; printf -- '---\\n' >> "${folder}/sent.log"; case "$*" in *FAIL*) exit 1;; esac`)
  script('termux-battery-status', `cat "${folder}/battery.json"`)
  script('termux-sms-list', `cat "${folder}/inbox.json"`)
  writeFileSync(join(folder, 'battery.json'), JSON.stringify({ percentage: 42, status: 'DISCHARGING', plugged: 'UNPLUGGED' }))
  writeFileSync(join(folder, 'inbox.json'), '[]')
  return {
    folder,
    env: { ...process.env, PATH: `${folder}:${process.env.PATH}` },
    sent: () => readFileSync(join(folder, 'sent.log'), 'utf8'),
    setInbox: (messages: unknown[]) => writeFileSync(join(folder, 'inbox.json'), JSON.stringify(messages)),
    setBattery: (battery: unknown) => writeFileSync(join(folder, 'battery.json'), JSON.stringify(battery)),
    remove: () => rmSync(folder, { recursive: true, force: true }),
  }
}

test.group('Termux driver (against fake termux-api commands)', (group) => {
  let fake: ReturnType<typeof fakeTermux>
  group.each.setup(() => {
    fake = fakeTermux()
    return () => fake.remove()
  })

  test('sends with termux-sms-send: number, SIM slot and text as separate arguments', async ({ assert }) => {
    const driver = new TermuxDriver({ env: fake.env })
    const outcome = await driver.send({ messageId: '7', to: '+33612345678', text: 'Hello; $(rm -rf /) "quoted"', simSlot: 1 })
    assert.deepEqual(outcome, { ok: true })
    assert.equal(fake.sent(), '-n\n+33612345678\n-s\n1\nHello; $(rm -rf /) "quoted"\n---\n')
  })

  test('a failing or missing command is a failed attempt with a reason', async ({ assert }) => {
    const driver = new TermuxDriver({ env: fake.env })
    assert.deepEqual(await driver.send({ messageId: '8', to: '+33612345678', text: 'FAIL please', simSlot: 0 }), { ok: false, reason: 'TERMUX_SEND_FAILED' })
    const missing = new TermuxDriver({ env: { ...process.env, PATH: fake.folder + '/nothing-here' } })
    assert.deepEqual(await missing.send({ messageId: '9', to: '+33612345678', text: 'x', simSlot: 0 }), { ok: false, reason: 'TERMUX_API_MISSING' })
  })

  test('reads the battery with termux-battery-status', async ({ assert }) => {
    const driver = new TermuxDriver({ env: fake.env })
    assert.deepEqual(await driver.status(), { battery: { level: 42, charging: false } })
    fake.setBattery({ percentage: 90, status: 'CHARGING', plugged: 'PLUGGED_AC' })
    assert.deepEqual(await driver.status(), { battery: { level: 90, charging: true } })
  })

  test('reports each new inbox SMS once, oldest first, not those already there at start', async ({ assert }) => {
    fake.setInbox([{ _id: 10, type: 'inbox', number: '+33600000000', received: '2026-05-04 09:00:00', body: 'old' }])
    const driver = new TermuxDriver({ env: fake.env })
    const received: unknown[] = []
    driver.onInbound((sms) => received.push(sms))
    await driver.start()
    driver.stop()
    fake.setInbox([
      { _id: 12, type: 'inbox', number: '+33612345678', received: '2026-05-04 09:31:00', body: 'second' },
      { _id: 11, type: 'inbox', number: '+33612345678', received: '2026-05-04 09:30:00', body: 'first' },
      { _id: 10, type: 'inbox', number: '+33600000000', received: '2026-05-04 09:00:00', body: 'old' },
    ])
    await driver.pollInbox()
    await driver.pollInbox()
    assert.deepEqual(
      received.map((sms: any) => [sms.ref, sms.from, sms.body]),
      [
        ['termux-11', '+33612345678', 'first'],
        ['termux-12', '+33612345678', 'second'],
      ]
    )
  })
})
