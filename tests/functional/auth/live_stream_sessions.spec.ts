import { test } from '@japa/runner'
import http from 'node:http'
import { randomUUID } from 'node:crypto'
import app from '@adonisjs/core/services/app'
import type { ApiClient } from '@japa/api-client'
import User from '#modules/auth/models/user'
import { UserService } from '#modules/auth/services/user_service'
import { LiveStreamSessions } from '#modules/auth/services/live_stream_sessions'
import { SessionStore } from '#modules/auth/stores/session_store'
import { asBrowser, signIn, signInAs, testKeys, useTestKeys, TEST_PASSWORD, type BrowserSession } from '#tests/helpers/callers'
import { eventually } from '#tests/helpers/phones'

/**
 * A live stream lives no longer than the session that opened it. Real streams over HTTP, read
 * as a browser's EventSource reads them: after the session ends, a broadcast on a channel the
 * stream followed reaches it no more, and the stream itself is ended by the gateway.
 */

/** A stream of the session, subscribed to the channels; `ended` once the gateway closed it. */
async function openStream(client: ApiClient, session: BrowserSession, channels: string[]) {
  const uid = randomUUID()
  let received = ''
  let status = 0
  let ended = false
  const request = http.get(
    `${process.env.GATEWAY_PUBLIC_URL}/__transmit/events?uid=${uid}`,
    { headers: { cookie: session.cookie, accept: 'text/event-stream' } },
    (response) => {
      status = response.statusCode ?? 0
      response.on('data', (chunk) => (received += chunk))
      response.on('end', () => (ended = true))
      response.on('close', () => (ended = true))
    }
  )
  request.on('error', () => {})
  await eventually(() => status === 200)
  for (const channel of channels) {
    ;(await asBrowser(client.post('/__transmit/subscribe'), session).json({ uid, channel })).assertStatus(204)
  }
  return {
    uid,
    /** Payloads received on the channel, pings left out. */
    events: (channel: string) =>
      received
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => JSON.parse(line.replace(/^data:\s*/, '')) as { channel: string; payload: Record<string, unknown> })
        .filter((event) => event.channel === channel)
        .map((event) => event.payload),
    ended: () => ended,
    close: () => request.destroy(),
  }
}

async function broadcast(channel: string, mark: string) {
  const transmit = await app.container.make('transmit')
  transmit.broadcast(channel, { type: 'test.mark', mark })
}

/** Broadcasts a first mark and waits for it: proves the stream received before the session ended. */
async function assertReceives(stream: Awaited<ReturnType<typeof openStream>>, channel: string, mark: string) {
  await broadcast(channel, mark)
  await eventually(() => stream.events(channel).some((event) => event.mark === mark))
}

/** After the session ended: a new broadcast does not arrive (a later control mark on another stream does). */
async function assertReceivesNothing(
  assert: any,
  stream: Awaited<ReturnType<typeof openStream>>,
  channel: string,
  control: Awaited<ReturnType<typeof openStream>> | undefined
) {
  const mark = randomUUID()
  await broadcast(channel, mark)
  // The control stream follows the same channel: once it has the mark, the other would have too.
  await eventually(() => control!.events(channel).some((event) => event.mark === mark))
  assert.isFalse(
    stream.events(channel).some((event) => event.mark === mark),
    'the old stream received a broadcast after its session ended'
  )
}

async function freshAccount(role: 'readonly' | 'operator' | 'superadmin') {
  const email = `live-${randomUUID().slice(0, 8)}@gateway.test`
  const user = await (await app.container.make(UserService)).create({ email, name: `Live ${role}`, password: TEST_PASSWORD, role }, null)
  return user
}

test.group('Live streams end with their session', (group) => {
  // A superadmin's stream that stays signed in throughout: the witness that broadcasts went out.
  let control: Awaited<ReturnType<typeof openStream>> | undefined
  group.each.teardown(() => {
    control?.close()
  })

  test('signed out: the stream is closed and a later broadcast reaches it no more', async ({ client, assert }) => {
    control = await openStream(client, await signInAs(client, 'superadmin'), ['devices', 'notices'])
    const account = await freshAccount('operator')
    const session = await signIn(client, account.email)
    const stream = await openStream(client, session, ['devices', 'notices'])
    try {
      await assertReceives(stream, 'devices', 'before')
      ;(await asBrowser(client.post('/api/v1/auth/logout'), session)).assertStatus(204)
      await eventually(() => stream.ended())
      await assertReceivesNothing(assert, stream, 'devices', control)
      await assertReceivesNothing(assert, stream, 'notices', control)
      // The same cookie cannot open a new one: the session has no account any more.
      const again = await client.get('/__transmit/events').qs({ uid: randomUUID() }).header('cookie', session.cookie)
      again.assertStatus(401)
    } finally {
      stream.close()
    }
  })

  test('account removed by a superadmin: its streams close, other accounts keep theirs', async ({ client, assert }) => {
    const admin = await signInAs(client, 'superadmin')
    control = await openStream(client, admin, ['devices'])
    const account = await freshAccount('operator')
    const session = await signIn(client, account.email)
    const stream = await openStream(client, session, ['devices'])
    const second = await openStream(client, await signIn(client, account.email), ['devices'])
    try {
      await assertReceives(stream, 'devices', 'before')
      ;(await asBrowser(client.delete(`/api/v1/users/${account.id}`), admin)).assertStatus(204)
      await eventually(() => stream.ended() && second.ended())
      await assertReceivesNothing(assert, stream, 'devices', control)
      await assertReceivesNothing(assert, second, 'devices', control)
      assert.isFalse(control.ended())
    } finally {
      stream.close()
      second.close()
    }
  })

  test('role lowered: the stream loses the channels the new role may not follow and keeps the others', async ({ client, assert }) => {
    const admin = await signInAs(client, 'superadmin')
    control = await openStream(client, admin, ['backups', 'devices'])
    const account = await freshAccount('superadmin')
    const session = await signIn(client, account.email)
    const stream = await openStream(client, session, ['backups', 'devices'])
    try {
      await assertReceives(stream, 'backups', 'before')
      ;(await asBrowser(client.patch(`/api/v1/users/${account.id}`), admin).json({ role: 'operator' })).assertStatus(200)
      await assertReceivesNothing(assert, stream, 'backups', control)
      // Still signed in as an operator: the stream stays open with what an operator may follow.
      await assertReceives(stream, 'devices', 'after')
      assert.isFalse(stream.ended())
      const refused = await asBrowser(client.post('/__transmit/subscribe'), session).json({ uid: stream.uid, channel: 'backups' })
      refused.assertStatus(403)
    } finally {
      stream.close()
    }
  })

  test('"sign out my other sessions" closes their streams; a password change does too', async ({ client, assert }) => {
    control = await openStream(client, await signInAs(client, 'superadmin'), ['devices'])
    const account = await freshAccount('readonly')
    const here = await signIn(client, account.email)
    const elsewhere = await signIn(client, account.email)
    const other = await openStream(client, elsewhere, ['devices'])
    try {
      await assertReceives(other, 'devices', 'before')
      ;(await asBrowser(client.post('/api/v1/auth/logout-others'), here)).assertStatus(200)
      await eventually(() => other.ended())
      await assertReceivesNothing(assert, other, 'devices', control)
    } finally {
      other.close()
    }

    const third = await signIn(client, account.email)
    const thirdStream = await openStream(client, third, ['devices'])
    const fourth = await signIn(client, account.email)
    try {
      await assertReceives(thirdStream, 'devices', 'before')
      const changed = await asBrowser(client.put('/api/v1/auth/password'), fourth).json({ currentPassword: TEST_PASSWORD, newPassword: 'another long passphrase 42' })
      changed.assertStatus(200)
      await eventually(() => thirdStream.ended())
      await assertReceivesNothing(assert, thirdStream, 'devices', control)
    } finally {
      thirdStream.close()
    }
  })

  test('a session ended by another process (user:reset-password) closes its stream at the next sweep', async ({ client, assert }) => {
    control = await openStream(client, await signInAs(client, 'superadmin'), ['devices'])
    const account = await freshAccount('operator')
    const stream = await openStream(client, await signIn(client, account.email), ['devices'])
    try {
      await assertReceives(stream, 'devices', 'before')
      // What the command does beside the server: the session rows go, nothing in this process is told.
      await new SessionStore().endSessionsOf(null, account.id)
      // The sweep runs every 5 seconds by itself.
      await eventually(() => stream.ended(), 8000)
      await assertReceivesNothing(assert, stream, 'devices', control)
    } finally {
      stream.close()
    }
  }).timeout(15_000)

  test('streams that end by themselves are forgotten', async ({ client }) => {
    const live = await app.container.make(LiveStreamSessions)
    const account = await freshAccount('readonly')
    const stream = await openStream(client, await signIn(client, account.email), ['devices'])
    const before = live.size
    stream.close()
    await eventually(() => live.size === before - 1)
    await User.query().where('id', account.id).delete()
  })
})

test.group('A live stream belongs to the session that opened it', (group) => {
  group.setup(() => useTestKeys())
  let control: Awaited<ReturnType<typeof openStream>> | undefined
  group.each.teardown(() => {
    control?.close()
  })

  test("another session that knows a stream's uid can neither add a channel to it nor take one away", async ({ client, assert }) => {
    control = await openStream(client, await signInAs(client, 'superadmin'), ['devices', 'notices'])
    const owner = await freshAccount('operator')
    const ownerSession = await signIn(client, owner.email)
    const stream = await openStream(client, ownerSession, ['devices'])
    // Another account, and another session of the same account: neither opened the stream.
    const strangers = [await signIn(client, (await freshAccount('superadmin')).email), await signIn(client, owner.email)]
    try {
      await assertReceives(stream, 'devices', 'before')
      for (const stranger of strangers) {
        const added = await asBrowser(client.post('/__transmit/subscribe'), stranger).json({ uid: stream.uid, channel: 'notices' })
        added.assertStatus(404)
        assert.equal(added.body().error.code, 'NOT_FOUND')
        assert.deepEqual(added.body().error.details, { field: 'uid' })
        const removed = await asBrowser(client.post('/__transmit/unsubscribe'), stranger).json({ uid: stream.uid, channel: 'devices' })
        removed.assertStatus(404)
        assert.equal(removed.body().error.code, 'NOT_FOUND')
      }
      // An API key opens no stream and changes none.
      const byKey = await client.post('/__transmit/subscribe').header('x-api-key', testKeys.admin).json({ uid: stream.uid, channel: 'notices' })
      byKey.assertStatus(403)

      await assertReceivesNothing(assert, stream, 'notices', control)
      await assertReceives(stream, 'devices', 'after')

      // A uid no stream has is answered the same: the answer does not tell whose a uid is.
      const unknown = await asBrowser(client.post('/__transmit/subscribe'), ownerSession).json({ uid: randomUUID(), channel: 'notices' })
      unknown.assertStatus(404)
      // The owner still changes its own stream.
      ;(await asBrowser(client.post('/__transmit/subscribe'), ownerSession).json({ uid: stream.uid, channel: 'notices' })).assertStatus(204)
      await assertReceives(stream, 'notices', 'own')
      ;(await asBrowser(client.post('/__transmit/unsubscribe'), ownerSession).json({ uid: stream.uid, channel: 'devices' })).assertStatus(204)
      await assertReceivesNothing(assert, stream, 'devices', control)
    } finally {
      stream.close()
    }
  })
})
