import { test } from '@japa/runner'
import db from '@adonisjs/lucid/services/db'
import { readFileSync } from 'node:fs'
import { DataFolder } from '#core/data_folder/data_folder'
import { flushLogFile } from '#core/logging/log_file'
import { useManualClock } from '#tests/helpers/clock'
import { testKeys, useTestKeys } from '#tests/helpers/callers'
import { clearMessaging, messageCount, sendAs, setLocalPrefix } from '#tests/helpers/messages'

test.group('POST /messages: accepting a send', (group) => {
  group.setup(() => useTestKeys())
  group.each.setup(async () => {
    await clearMessaging()
    await setLocalPrefix(null)
  })

  test('one number: 202 {accepted: [message]} queued, attempts 0, with every field of the resource', async ({ client, assert }) => {
    const response = await sendAs(client, { to: '+33612345678', body: 'Your code is 1234' })
    response.assertStatus(202)
    const [message] = response.body().accepted
    assert.lengthOf(response.body().accepted, 1)
    assert.deepInclude(message, {
      direction: 'out',
      category: 'transactional',
      phone: '+33612345678',
      body: 'Your code is 1234',
      encoding: 'gsm7',
      segments: 1,
      status: 'queued',
      attempts: 0,
      errorCode: null,
      holdReason: null,
      heldUntil: null,
      deviceId: null,
      simSlot: null,
      scheduledAt: null,
      sentAt: null,
      deliveredAt: null,
      failedAt: null,
    })
    assert.isString(message.id)
    assert.isString(message.conversationId)
    assert.match(message.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
    const stored = await client.get(`/api/v1/messages/${message.id}`).header('x-api-key', testKeys.read)
    assert.deepEqual(stored.body(), message)
  })

  test('many numbers: one message per number in the order of to, duplicates included', async ({ client, assert }) => {
    const to = ['+33612345678', '+447911123456', '+33612345678', '+14155552671']
    const response = await sendAs(client, { to, body: 'Hello' })
    response.assertStatus(202)
    assert.deepEqual(response.body().accepted.map((message: any) => message.phone), to)
    assert.equal(await messageCount(), 4)
    // One conversation per number.
    const conversations = await db.from('conversations').count('* as total').first()
    assert.equal(Number(conversations.total), 3)
    assert.equal(response.body().accepted[0].conversationId, response.body().accepted[2].conversationId)
  })

  test('encoding and segments are computed as a phone counts them', async ({ client, assert }) => {
    const cases = [
      { body: 'a'.repeat(160), encoding: 'gsm7', segments: 1 },
      { body: 'a'.repeat(161), encoding: 'gsm7', segments: 2 },
      { body: 'Prix: 5€', encoding: 'gsm7', segments: 1 },
      { body: 'Merci 🙏', encoding: 'ucs2', segments: 1 },
      { body: 'ç'.repeat(71), encoding: 'ucs2', segments: 2 },
    ]
    for (const expected of cases) {
      const response = await sendAs(client, { to: '+33612345678', body: expected.body })
      assert.deepInclude(response.body().accepted[0], { encoding: expected.encoding, segments: expected.segments })
    }
  })

  test('local dialled numbers are completed with the local prefix setting', async ({ client, assert }) => {
    const refused = await sendAs(client, { to: '06 12 34 56 78', body: 'x' })
    refused.assertStatus(400)
    assert.equal(refused.body().error.code, 'INVALID_PHONE')

    await setLocalPrefix('+33')
    const accepted = await sendAs(client, { to: ['06 12 34 56 78', '+447911123456'], body: 'x' })
    accepted.assertStatus(202)
    assert.deepEqual(accepted.body().accepted.map((message: any) => message.phone), ['+33612345678', '+447911123456'])
  })

  test('one invalid number refuses the whole request: INVALID_PHONE names its position, never the number', async ({ client, assert }) => {
    const response = await sendAs(client, { to: ['+33612345678', '+33612345679', 'not-a-number', '+1 415 555'], body: 'x' })
    response.assertStatus(400)
    assert.equal(response.body().error.code, 'INVALID_PHONE')
    assert.deepInclude(response.body().error.details, { position: 2, positions: [2, 3] })
    assert.notInclude(JSON.stringify(response.body()), 'not-a-number')
    // Digits of the number in any spelling; a short '415' alone would also match a random requestId.
    assert.notInclude(JSON.stringify(response.body()), '415 555')
    assert.notInclude(JSON.stringify(response.body()), '415555')
    assert.equal(await messageCount(), 0)
  })

  test('one opted-out recipient refuses the whole request with 403 CONTACT_BLACKLISTED; nothing is queued', async ({ client, assert }) => {
    await client.post('/api/v1/contacts').header('x-api-key', testKeys.admin).json({ phone: '+447911123456', blacklisted: true })
    const response = await sendAs(client, { to: ['+33612345678', '+447911123456'], body: 'Promo' })
    response.assertStatus(403)
    assert.equal(response.body().error.code, 'CONTACT_BLACKLISTED')
    assert.equal(response.body().error.details.position, 1)
    assert.notInclude(JSON.stringify(response.body()), '7911123456')
    assert.equal(await messageCount(), 0)
    const conversations = await db.from('conversations').count('* as total').first()
    assert.equal(Number(conversations.total), 0)
  })

  test('sends written together still stand alone: an opted-out number refuses only its own send', async ({ client, assert }) => {
    await client.post('/api/v1/contacts').header('x-api-key', testKeys.admin).json({ phone: '+447911123456', blacklisted: true })
    const answers = await Promise.all([
      sendAs(client, { to: '+33612345678', body: 'one' }),
      sendAs(client, { to: ['+33612345679', '+447911123456'], body: 'two' }),
      sendAs(client, { to: '+33612345670', body: 'three' }),
    ])
    assert.deepEqual(answers.map((answer) => answer.status()), [202, 403, 202])
    assert.equal(answers[1].body().error.code, 'CONTACT_BLACKLISTED')
    assert.equal(await messageCount(), 2)
    assert.deepEqual(answers[2].body().accepted.map((message: any) => message.body), ['three'])
  })

  test('sends written together: every stored message is the one its answer names, across statements', async ({ client, assert }) => {
    // Three sends of 500 and small ones between them, at once: one batch, more recipients than
    // one INSERT takes, each send with its own text, category and schedule.
    const bulk = (prefix: string) => Array.from({ length: 500 }, (_, index) => `+3361${prefix}${String(index).padStart(6, '0')}`)
    const requests = [
      { to: bulk('1'), body: 'bulk one', category: 'info' },
      { to: '+447911123456', body: 'single ünïcode ✓', category: 'conversation' },
      { to: bulk('2'), body: 'bulk two', scheduledAt: '2099-01-01T00:00:00.000Z' },
      { to: ['+14155552671', '+14155552672'], body: 'pair' },
      { to: bulk('3'), body: 'bulk three', category: 'campaign', simSlot: 1 },
    ]
    const answers = await Promise.all(requests.map((request) => sendAs(client, request)))
    assert.deepEqual(answers.map((answer) => answer.status()), [202, 202, 202, 202, 202])
    assert.equal(await messageCount(), 1503)
    for (const [index, answer] of answers.entries()) {
      const accepted = answer.body().accepted
      const to = requests[index].to
      assert.deepEqual(accepted.map((message: any) => message.phone), Array.isArray(to) ? to : [to])
      const stored = await db.from('messages').whereIn('id', accepted.map((message: any) => Number(message.id))).orderBy('id')
      assert.deepEqual(
        stored.map((row) => [String(row.id), row.phone, row.body, row.category, row.scheduled_at, row.sim_slot, String(row.conversation_id)]),
        accepted.map((message: any) => [message.id, message.phone, message.body, message.category, message.scheduledAt, message.simSlot, message.conversationId])
      )
    }
  })

  test('to: more than 500 is VALIDATION_ERROR pointing to campaigns; 500 is accepted', async ({ client, assert }) => {
    const numbers = Array.from({ length: 501 }, (_, index) => `+3361${String(index).padStart(7, '0')}`)
    const tooMany = await sendAs(client, { to: numbers, body: 'x' })
    tooMany.assertStatus(400)
    assert.equal(tooMany.body().error.code, 'VALIDATION_ERROR')
    assert.include(tooMany.body().error.message, 'campaign')
    assert.equal(await messageCount(), 0)

    const exactly = await sendAs(client, { to: numbers.slice(0, 500), body: 'x' })
    exactly.assertStatus(202)
    assert.lengthOf(exactly.body().accepted, 500)
    assert.equal(await messageCount(), 500)
  })

  test('to missing, empty or of the wrong type is VALIDATION_ERROR on to', async ({ client, assert }) => {
    for (const body of [{ body: 'x' }, { to: [], body: 'x' }, { to: 33612345678, body: 'x' }, { to: [null], body: 'x' }]) {
      const response = await sendAs(client, body)
      assert.oneOf(response.body().error.code, ['VALIDATION_ERROR', 'INVALID_PHONE'])
      response.assertStatus(400)
    }
  })

  test('a missing or empty body is 400 EMPTY_BODY; any length is accepted', async ({ client, assert }) => {
    for (const body of [{ to: '+33612345678' }, { to: '+33612345678', body: '' }, { to: '+33612345678', body: '   ' }]) {
      const response = await sendAs(client, body)
      response.assertStatus(400)
      assert.equal(response.body().error.code, 'EMPTY_BODY')
    }
    const long = await sendAs(client, { to: '+33612345678', body: 'x'.repeat(5000) })
    long.assertStatus(202)
    assert.equal(long.body().accepted[0].segments, Math.ceil(5000 / 153))
  })

  test('scheduledAt: a future date keeps the message queued until then; a past one is 422 SCHEDULED_AT_IN_PAST', async ({ client, assert }) => {
    const { restore } = useManualClock('2026-09-01T12:00:00.000Z')
    try {
      const future = await sendAs(client, { to: '+33612345678', body: 'later', scheduledAt: '2026-09-01T15:00:00+02:00' })
      future.assertStatus(202)
      assert.equal(future.body().accepted[0].scheduledAt, '2026-09-01T13:00:00.000Z')
      assert.equal(future.body().accepted[0].status, 'queued')
      const past = await sendAs(client, { to: '+33612345678', body: 'x', scheduledAt: '2026-09-01T11:59:59Z' })
      past.assertStatus(422)
      assert.equal(past.body().error.code, 'SCHEDULED_AT_IN_PAST')
      const now = await sendAs(client, { to: '+33612345678', body: 'x', scheduledAt: '2026-09-01T12:00:00Z' })
      now.assertStatus(422)
      const garbage = await sendAs(client, { to: '+33612345678', body: 'x', scheduledAt: 'tomorrow' })
      garbage.assertStatus(400)
      assert.equal(garbage.body().error.details[0].field, 'scheduledAt')
    } finally {
      restore()
    }
  })

  test('category defaults to transactional, takes the four values, refuses others', async ({ client, assert }) => {
    for (const category of ['transactional', 'conversation', 'info', 'campaign']) {
      const response = await sendAs(client, { to: '+33612345678', body: 'x', category })
      assert.equal(response.body().accepted[0].category, category)
    }
    const unknown = await sendAs(client, { to: '+33612345678', body: 'x', category: 'marketing' })
    unknown.assertStatus(400)
    assert.equal(unknown.body().error.details[0].field, 'category')
  })

  test('deviceId and simSlot are kept; simSlot is 0 or 1; templateId and variables are accepted and ignored', async ({ client, assert }) => {
    const response = await sendAs(client, { to: '+33612345678', body: 'Final text', deviceId: 'phone-1', simSlot: 1, templateId: 'tpl', variables: { a: 1 } })
    response.assertStatus(202)
    assert.deepInclude(response.body().accepted[0], { deviceId: 'phone-1', simSlot: 1, body: 'Final text' })
    const badSlot = await sendAs(client, { to: '+33612345678', body: 'x', simSlot: 2 })
    badSlot.assertStatus(400)
    assert.equal(badSlot.body().error.details[0].field, 'simSlot')
    const badFlag = await sendAs(client, { to: '+33612345678', body: 'x', shortenLinks: 'yes' })
    badFlag.assertStatus(400)
  })

  test('sending needs send scope (or an operator/superadmin session); read is 403', async ({ client, assert }) => {
    const response = await sendAs(client, { to: '+33612345678', body: 'x' }, testKeys.read)
    response.assertStatus(403)
    assert.equal(response.body().error.details.requiredScope, 'send')
    ;(await sendAs(client, { to: '+33612345678', body: 'x' }, testKeys.admin)).assertStatus(202)
  })

  test('no error message or log line carries the SMS text or a full number', async ({ client, assert }) => {
    const secretText = 'Top secret OTP 998877'
    const refused = await sendAs(client, { to: ['+33612345678', 'garbage'], body: secretText })
    assert.notInclude(refused.text(), secretText)
    assert.notInclude(refused.text(), '33612345678')
    await sendAs(client, { to: '+33612345678', body: secretText })
    // The file itself: the technical log endpoint masks numbers again when it reads.
    flushLogFile()
    const file = readFileSync(DataFolder.current().logFile, 'utf8')
    assert.notInclude(file, secretText)
    assert.notInclude(file, '33612345678')
  })

  test('a scheduledAt beyond year 9999 is refused (dates compare as text)', async ({ client, assert }) => {
    const response = await sendAs(client, { to: '+33612345678', body: 'x', scheduledAt: '+275760-09-13T00:00:00Z' })
    response.assertStatus(400)
    assert.equal(response.body().error.details[0].field, 'scheduledAt')
  })
})
