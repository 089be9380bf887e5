import { test } from '@japa/runner'
import { afterSendingMinutes, isSendingOpen, nextOpening, type SendWindowSettings } from '#modules/campaigns/services/send_window'

const paris: SendWindowSettings = {
  timezone: 'Europe/Paris',
  campaignWindowEnabled: false,
  campaignWindowDays: [1, 2, 3, 4, 5, 6, 7],
  campaignWindowStart: '09:00',
  campaignWindowEnd: '20:00',
  nightPauseEnabled: true,
  nightPauseStart: '21:00',
  nightPauseEnd: '08:00',
}

const at = (iso: string) => new Date(iso)

test.group('Send window and night pause', () => {
  test('the night pause runs across midnight in the platform time zone', ({ assert }) => {
    // January: Paris is UTC+1.
    assert.isTrue(isSendingOpen(at('2026-01-15T19:59:00Z'), paris)) // 20:59 local
    assert.isFalse(isSendingOpen(at('2026-01-15T20:00:00Z'), paris)) // 21:00
    assert.isFalse(isSendingOpen(at('2026-01-15T23:30:00Z'), paris)) // 00:30 next day
    assert.isFalse(isSendingOpen(at('2026-01-16T06:59:00Z'), paris)) // 07:59
    assert.isTrue(isSendingOpen(at('2026-01-16T07:00:00Z'), paris)) // 08:00
    assert.equal(nextOpening(at('2026-01-15T23:30:00Z'), paris)!.toISOString(), '2026-01-16T07:00:00.000Z')
    assert.isNull(nextOpening(at('2026-01-16T10:00:00Z'), paris))
    assert.isTrue(isSendingOpen(at('2026-01-15T23:30:00Z'), { ...paris, nightPauseEnabled: false }))
  })

  test('across the spring-forward change (Europe/Paris, 2026-03-29) the pause ends at 08:00 local, UTC+2', ({ assert }) => {
    // 21:00 on the 28th is 20:00Z (UTC+1); 08:00 on the 29th is 06:00Z (UTC+2): a night an hour shorter.
    assert.equal(nextOpening(at('2026-03-28T20:30:00Z'), paris)!.toISOString(), '2026-03-29T06:00:00.000Z')
    assert.isFalse(isSendingOpen(at('2026-03-29T05:59:00Z'), paris))
    assert.isTrue(isSendingOpen(at('2026-03-29T06:00:00Z'), paris))
    // A pause ending in the skipped hour (02:30 does not exist that night) opens right after the gap, 03:00 local.
    const gap = { ...paris, nightPauseStart: '01:00', nightPauseEnd: '02:30' }
    assert.equal(nextOpening(at('2026-03-29T00:15:00Z'), gap)!.toISOString(), '2026-03-29T01:00:00.000Z')
  })

  test('across the fall-back change (Europe/Paris, 2026-10-25) the pause ends at 08:00 local, UTC+1', ({ assert }) => {
    assert.equal(nextOpening(at('2026-10-24T19:30:00Z'), paris)!.toISOString(), '2026-10-25T07:00:00.000Z')
    assert.isFalse(isSendingOpen(at('2026-10-25T06:30:00Z'), paris)) // 07:30 local (UTC+1)
    assert.isTrue(isSendingOpen(at('2026-10-25T07:00:00Z'), paris))
  })

  test('the send window: its days and hours, a window across midnight belonging to the day it opened', ({ assert }) => {
    const weekdays = { ...paris, nightPauseEnabled: false, campaignWindowEnabled: true, campaignWindowDays: [1, 2, 3, 4, 5] }
    // 2026-01-16 is a Friday, the 17th a Saturday.
    assert.isTrue(isSendingOpen(at('2026-01-16T10:00:00Z'), weekdays))
    assert.isFalse(isSendingOpen(at('2026-01-16T19:00:00Z'), weekdays)) // 20:00 local: closed
    assert.isFalse(isSendingOpen(at('2026-01-17T10:00:00Z'), weekdays))
    assert.equal(nextOpening(at('2026-01-16T19:00:00Z'), weekdays)!.toISOString(), '2026-01-19T08:00:00.000Z') // Monday 09:00
    const evenings = { ...weekdays, campaignWindowStart: '22:00', campaignWindowEnd: '02:00' }
    assert.isTrue(isSendingOpen(at('2026-01-16T23:30:00Z'), evenings)) // Saturday 00:30, Friday's window
    assert.isFalse(isSendingOpen(at('2026-01-17T23:30:00Z'), evenings)) // Sunday 00:30, Saturday's window: closed
    assert.isNull(nextOpening(at('2026-01-16T10:00:00Z'), { ...weekdays, campaignWindowDays: [] }) ?? null)
    assert.isNull(nextOpening(at('2026-01-17T10:00:00Z'), { ...weekdays, campaignWindowDays: [] }))
  })

  test('a window sends from its start minute up to, not including, its end minute; the night pause alike', ({ assert }) => {
    const window = { ...paris, timezone: 'UTC', nightPauseEnabled: false, campaignWindowEnabled: true }
    assert.isFalse(isSendingOpen(at('2026-01-15T08:59:59Z'), window))
    assert.isTrue(isSendingOpen(at('2026-01-15T09:00:00Z'), window))
    assert.isTrue(isSendingOpen(at('2026-01-15T19:59:59Z'), window), 'the minute before the end still sends')
    assert.isFalse(isSendingOpen(at('2026-01-15T20:00:00Z'), window), 'the end minute itself is closed')
    const night = { ...paris, timezone: 'UTC' }
    assert.isTrue(isSendingOpen(at('2026-01-15T20:59:59Z'), night))
    assert.isFalse(isSendingOpen(at('2026-01-15T21:00:00Z'), night), 'the pause starts at its start minute')
    assert.isFalse(isSendingOpen(at('2026-01-16T07:59:59Z'), night))
    assert.isTrue(isSendingOpen(at('2026-01-16T08:00:00Z'), night), 'and ends at its end minute')
  })

  test('a window of 00:00-00:00 is open all day on its days; a night pause whose start equals its end pauses nothing', ({ assert }) => {
    const allDay = { ...paris, timezone: 'UTC', nightPauseEnabled: false, campaignWindowEnabled: true, campaignWindowStart: '00:00', campaignWindowEnd: '00:00', campaignWindowDays: [1, 2, 3, 4, 5] }
    // 2026-01-16 is a Friday, the 17th a Saturday, the 19th a Monday.
    assert.isTrue(isSendingOpen(at('2026-01-16T00:00:00Z'), allDay))
    assert.isTrue(isSendingOpen(at('2026-01-16T12:00:00Z'), allDay))
    assert.isTrue(isSendingOpen(at('2026-01-16T23:59:59Z'), allDay))
    assert.isFalse(isSendingOpen(at('2026-01-17T00:00:00Z'), allDay))
    assert.equal(nextOpening(at('2026-01-17T10:00:00Z'), allDay)!.toISOString(), '2026-01-19T00:00:00.000Z')
    // Another equal pair is 24 hours from that time, belonging to the day it opened: Friday 08:00 to Saturday 08:00.
    const fromEight = { ...allDay, campaignWindowStart: '08:00', campaignWindowEnd: '08:00' }
    assert.isTrue(isSendingOpen(at('2026-01-17T07:59:00Z'), fromEight))
    assert.isFalse(isSendingOpen(at('2026-01-17T08:00:00Z'), fromEight))
    assert.isFalse(isSendingOpen(at('2026-01-19T07:59:00Z'), fromEight), "Monday before 08:00 is Sunday's window")
    const noPause = { ...paris, timezone: 'UTC', nightPauseStart: '00:00', nightPauseEnd: '00:00' }
    assert.isTrue(isSendingOpen(at('2026-01-16T00:00:00Z'), noPause))
    assert.isTrue(isSendingOpen(at('2026-01-16T03:00:00Z'), noPause))
  })

  test('an estimate counts only open hours', ({ assert }) => {
    // 20:00 local with 120 minutes to send: 60 before the pause, 60 after 08:00 the next morning.
    assert.equal(afterSendingMinutes(at('2026-01-15T19:00:00Z'), 120, paris)!.toISOString(), '2026-01-16T08:00:00.000Z')
  })
})
