import { test } from '@japa/runner'
import { execFileSync } from 'node:child_process'
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { checkedFetch } from '#tests/helpers/answer_contract'
import { firstApiKey, query, startGateway, stop } from '#tests/helpers/gateway_process'
import { startSmtpReceiver } from '#tests/helpers/smtp_receiver'

/** A small file system of the test's own (tmpfs with a size, as root), or null where it cannot mount one. */
function mountSmallDisk(megabytes: number): string | null {
  const folder = mkdtempSync(join(tmpdir(), 'gateway-full-disk-'))
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${megabytes}m`, 'tmpfs', folder], { stdio: 'ignore' })
    return folder
  } catch {
    rmSync(folder, { recursive: true, force: true })
    return null
  }
}

function canMountSmallDisk(): boolean {
  const probe = mountSmallDisk(1)
  if (probe) unmount(probe)
  return probe !== null
}

function unmount(folder: string) {
  try {
    execFileSync('umount', [folder], { stdio: 'ignore' })
  } catch {}
  rmSync(folder, { recursive: true, force: true })
}

/** Takes whatever room is left on the disk with a file of its own (so a log line cannot be written either). */
function fillTheRest(file: string) {
  const fd = openSync(file, 'w')
  const block = Buffer.alloc(64 * 1024, 1)
  try {
    for (;;) writeSync(fd, block)
  } catch {
    // ENOSPC: the disk is full to the last byte.
  } finally {
    closeSync(fd)
  }
  // Space a partial block may have left.
  const small = Buffer.alloc(512, 1)
  const tail = openSync(file, 'a')
  try {
    for (;;) writeSync(tail, small)
  } catch {
  } finally {
    closeSync(tail)
  }
}

async function waitFor(check: () => Promise<boolean>, what: string, timeoutMs = 40_000) {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (await check()) return
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  throw new Error(`timed out waiting for ${what}`)
}

const recipients = (from: number) => Array.from({ length: 500 }, (_, index) => `+3361${String(from + index).padStart(7, '0')}`)

test.group('A full disk', () => {
  test('refuses writes with 503 STORAGE_FULL, keeps serving reads, alerts, resumes by itself, and stores every message it answered 202 for', async ({ assert }) => {
    const disk = mountSmallDisk(12)
    if (!disk) throw new Error('the tmpfs could be mounted a moment ago and not now')
    const smtp = await startSmtpReceiver()
    const gateway = await startGateway(join(disk, 'data'))
    try {
      const base = `http://127.0.0.1:${gateway.port}`
      const key = await firstApiKey(gateway.port)
      const headers = { 'content-type': 'application/json', 'x-api-key': key }
      const settings = await checkedFetch(`${base}/api/v1/settings`, {
        method: 'PATCH',
        headers,
        body: JSON.stringify({
          notifications: { smtpHost: '127.0.0.1', smtpPort: smtp.port, smtpSecurity: 'none', smtpUsername: 'alerts', smtpPassword: 'smtp-password-123', adminEmails: ['ops@gateway.test'] },
        }),
      })
      assert.equal(settings.status, 200)
      // A dashboard signed in before the disk fills.
      const signIn = await checkedFetch(`${base}/api/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'owner@gateway.test', password: 'correct horse battery staple' }),
      })
      assert.equal(signIn.status, 200)
      const cookie = signIn.headers.getSetCookie().map((line) => line.split(';')[0]).join('; ')

      // Fill: 500-recipient sends until the disk refuses one.
      let accepted = 0
      let next = 0
      let refusal: Response | null = null
      for (let send = 0; send < 200 && !refusal; send++) {
        const answer = await checkedFetch(`${base}/api/v1/messages`, { method: 'POST', headers, body: JSON.stringify({ to: recipients(next), body: `full disk test ${send}` }) })
        next += 500
        if (answer.status === 202) accepted += 500
        else refusal = answer
      }
      assert.isNotNull(refusal, 'the disk never filled')
      assert.equal(refusal!.status, 503)
      assert.equal(((await refusal!.json()) as { error: { code: string } }).error.code, 'STORAGE_FULL')
      assert.equal(refusal!.headers.get('retry-after'), '60')

      // Refuse: not a byte left, not even for a log line; the gateway stays up.
      fillTheRest(join(disk, 'filler'))
      for (let attempt = 0; attempt < 5; attempt++) {
        const answer = await checkedFetch(`${base}/api/v1/messages`, { method: 'POST', headers, body: JSON.stringify({ to: recipients(next), body: 'on a full disk' }) })
        next += 500
        assert.equal(answer.status, 503)
      }
      const health = await checkedFetch(`${base}/health`)
      assert.deepEqual(await health.json(), { status: 'degraded', storage: 'full', database: 'ok' })
      // Reads and exports go on.
      const page = await checkedFetch(`${base}/api/v1/messages?limit=5`, { headers })
      assert.equal(page.status, 200)
      const dashboardPage = await checkedFetch(`${base}/api/v1/messages?limit=5`, { headers: { cookie } })
      assert.equal(dashboardPage.status, 200)
      const me = await checkedFetch(`${base}/api/v1/auth/me`, { headers: { cookie } })
      assert.equal(me.status, 200)
      const exported = await checkedFetch(`${base}/api/v1/export/messages?format=csv`, { headers })
      assert.equal(exported.status, 200)
      assert.isAbove((await exported.text()).split('\n').length, accepted)
      await waitFor(async () => smtp.mails.some((mail) => mail.raw.includes('Disk full')), 'the disk full e-mail')

      // Free: the gateway sees the room within seconds and takes sends again by itself.
      rmSync(join(disk, 'filler'))
      execFileSync('mount', ['-o', 'remount,size=64m', disk])
      await waitFor(async () => ((await (await checkedFetch(`${base}/health`)).json()) as { storage: string }).storage === 'ok', '/health to say the disk has room')
      const resumed = await checkedFetch(`${base}/api/v1/messages`, { method: 'POST', headers, body: JSON.stringify({ to: recipients(next), body: 'after the disk has room' }) })
      assert.equal(resumed.status, 202)
      accepted += 500
      await waitFor(async () => smtp.mails.some((mail) => mail.raw.includes('room again')), 'the room again e-mail')
      // The Activity log keeps the episode once it can be written.
      const activity = await checkedFetch(`${base}/api/v1/activity?kind=storage.full`, { headers })
      const [entry] = ((await activity.json()) as { data: Array<{ level: string; details: { fullSince: string; until: string } }> }).data
      assert.equal(entry.level, 'warning')
      assert.isBelow(Date.parse(entry.details.fullSince), Date.parse(entry.details.until))

      assert.equal(await stop(gateway.child, 'SIGTERM'), 0)
      // Every 202 stored, nothing else.
      const [stored] = await query<{ count: number }>(join(disk, 'data', 'gateway.db'), 'SELECT COUNT(*) AS count FROM messages')
      assert.equal(stored.count, accepted)
      // The log says how many lines it could not write, once it could again.
      assert.match(readFileSync(join(disk, 'data', 'logs', 'gateway.log'), 'utf8'), /log lines were dropped since/)
    } finally {
      if (gateway.child.exitCode === null) await stop(gateway.child, 'SIGKILL')
      await smtp.close()
      unmount(disk)
    }
  })
    .timeout(180_000)
    .skip(!canMountSmallDisk(), 'cannot mount a tmpfs here (needs root)')
})
