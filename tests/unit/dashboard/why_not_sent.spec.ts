import { test } from '@japa/runner'
import { whyNotSentYet, type MessageFacts, type PhoneFacts } from '../../../dashboard/src/pages/messages/why_not_sent.js'
import { nextMidnightIn } from '../../../dashboard/src/pages/messages/next_midnight.js'

const now = new Date('2026-03-10T12:00:00Z')
const later = '2026-03-10T12:05:00.000Z'
const earlier = '2026-03-10T11:55:00.000Z'
const online: PhoneFacts = { id: '1', name: 'Desk phone', enabled: true, status: 'online' }
const offline: PhoneFacts = { id: '2', name: 'Drawer phone', enabled: true, status: 'offline' }
const queued: MessageFacts = { direction: 'out', status: 'queued', attempts: 0 }
const why = (message: Partial<MessageFacts>, phones: PhoneFacts[] = [online], quotaResetAt: Date | null = null) =>
  whyNotSentYet({ ...queued, ...message }, { phones, now, quotaResetAt, time: (iso) => `<${iso}>` })

test.group('Why a message is not sent yet', () => {
  test('sent, delivered and received messages need no reason', ({ assert }) => {
    assert.isNull(why({ status: 'sent' }))
    assert.isNull(why({ status: 'delivered' }))
    assert.isNull(why({ direction: 'in', status: 'delivered' }))
  })

  test('scheduled for later', ({ assert }) => {
    assert.deepEqual(why({ scheduledAt: later }), { kind: 'waiting', text: `Scheduled for <${later}>.` })
    // A schedule that has passed is no reason any more.
    assert.notInclude(why({ scheduledAt: earlier })!.text, 'Scheduled')
  })

  test('the phone it was forced to is offline, disabled, or not paired any more', ({ assert }) => {
    assert.deepEqual(why({ deviceId: '2' }, [online, offline]), { kind: 'blocked', text: 'Phone “Drawer phone” is offline; the message waits for it.' })
    assert.include(why({ deviceId: '2' }, [{ ...offline, status: 'online', enabled: false }])!.text, 'is disabled')
    assert.include(why({ deviceId: '9' }, [online])!.text, 'The phone it was forced to (#9) is not paired')
    assert.equal(why({ deviceId: '1', simSlot: 1 })!.text, 'Forced to phone “Desk phone” (SIM 2): the next dispatch pass hands it over.')
  })

  test('handed to a phone and waiting for it to accept the order', ({ assert }) => {
    assert.deepEqual(why({ deviceId: '1', simSlot: 0, orderedAt: earlier }), {
      kind: 'waiting',
      text: `Handed to phone “Desk phone” (SIM 1) at <${earlier}>: waiting for it to accept.`,
    })
    // Handed to a phone that has gone offline since: it waits for that phone.
    assert.include(why({ deviceId: '2', orderedAt: earlier }, [online, offline])!.text, 'is offline')
  })

  test('no phone paired, none online, or simply due', ({ assert }) => {
    assert.include(why({}, [])!.text, 'No phone is paired yet')
    assert.include(why({}, [offline])!.text, 'No phone is online')
    assert.include(why({}, [{ ...online, enabled: false }])!.text, 'No phone is online')
    assert.deepEqual(why({}, [online]), { kind: 'waiting', text: 'Due now: the next dispatch pass hands it to a phone.' })
  })

  test("SIM quota reached: resumes at the platform's midnight", ({ assert }) => {
    const midnight = new Date('2026-03-11T00:00:00Z')
    assert.equal(
      why({ status: 'pending_quota_exceeded' }, [online], midnight)!.text,
      `SIM quota reached: every usable SIM sent its daily quota. It resumes at midnight (<${midnight.toISOString()}>), or when a quota is raised.`
    )
    assert.notInclude(why({ status: 'pending_quota_exceeded' })!.text, '(<')
  })

  test("held by the SIM's cadence or rate until a time, no attempt spent", ({ assert }) => {
    assert.equal(why({ holdReason: 'sim_cadence', heldUntil: later })!.text, `Held by the SIM's minimum interval between two SMS (cadence/rate) until <${later}>; no attempt is spent.`)
    assert.include(why({ holdReason: 'sim_rate', heldUntil: later })!.text, "Held by the SIM's per-minute limit")
  })

  test('waiting for retry N at a time after a failed attempt', ({ assert }) => {
    assert.deepEqual(why({ attempts: 2, heldUntil: later, errorCode: 'NO_SIGNAL' }), {
      kind: 'waiting',
      text: `Attempt 2 failed (NO_SIGNAL); waiting for retry 2 at <${later}>.`,
    })
  })

  test('the phone it was forced to was unpaired, or lacks the SIM', ({ assert }) => {
    assert.deepEqual(why({ status: 'failed', errorCode: 'DEVICE_NOT_PAIRED', deviceId: '7' }), {
      kind: 'final',
      text: 'The phone it was forced to (#7) is not paired with this gateway (unpaired, or never paired), so it could not be sent.',
    })
    assert.include(why({ status: 'failed', errorCode: 'SIM_NOT_FOUND', deviceId: '1', simSlot: 1 })!.text, 'The SIM it was forced to (SIM 2) is not on phone “Desk phone”')
  })

  test('outcome unknown, and given up after its attempts', ({ assert }) => {
    assert.include(why({ status: 'failed', errorCode: 'OUTCOME_UNKNOWN', deviceId: '1' })!.text, 'could not tell whether the SMS left')
    assert.equal(why({ status: 'failed', errorCode: 'GENERIC_FAILURE', attempts: 4 })!.text, 'Given up after 4 attempts: the phone reported GENERIC_FAILURE.')
  })

  test('handed to a phone, paused, cancelled', ({ assert }) => {
    assert.include(why({ status: 'dispatched', deviceId: '1', simSlot: 0 })!.text, 'Handed to phone “Desk phone” (SIM 1); waiting for it to confirm')
    assert.include(why({ status: 'paused' })!.text, 'Paused with its campaign')
    assert.include(why({ status: 'cancelled', errorCode: 'CONTACT_BLACKLISTED' })!.text, 'the recipient opted out')
    assert.include(why({ status: 'cancelled', errorCode: 'CAMPAIGN_CANCELLED' })!.text, 'Cancelled with its campaign')
  })
})

test.group('The next midnight of the platform time zone', () => {
  test('in UTC, in Paris, and across a daylight-saving change', ({ assert }) => {
    assert.equal(nextMidnightIn('UTC', now).toISOString(), '2026-03-11T00:00:00.000Z')
    assert.equal(nextMidnightIn('Europe/Paris', now).toISOString(), '2026-03-10T23:00:00.000Z')
    // Paris springs forward on 2026-03-29: that night's midnight is still at +01:00, the next at +02:00.
    assert.equal(nextMidnightIn('Europe/Paris', new Date('2026-03-29T12:00:00Z')).toISOString(), '2026-03-29T22:00:00.000Z')
    assert.equal(nextMidnightIn('America/New_York', new Date('2026-03-10T03:00:00Z')).toISOString(), '2026-03-10T04:00:00.000Z')
  })
})
