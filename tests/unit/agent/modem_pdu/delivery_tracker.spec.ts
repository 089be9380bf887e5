import { test } from '@japa/runner'
import { DeliveryTracker, deliveryStatus, sameRecipient } from '../../../../agent/src/modem/pdu/index.js'

const DELIVERED = deliveryStatus(0x00)
const BUSY = deliveryStatus(0x21)
const EXPIRED = deliveryStatus(0x46)

test.group('PDU codec / delivery of a multi-part SMS', () => {
  test('delivered only once every part was reported delivered, in any order', ({ assert }) => {
    const tracker = new DeliveryTracker()
    tracker.track('m1', [10, 11, 12])
    assert.deepEqual(tracker.report(12, DELIVERED), { messageId: 'm1', outcome: 'pending', code: 'DELIVERED', delivered: 1, parts: 3 })
    assert.deepInclude(tracker.report(12, DELIVERED), { outcome: 'pending', delivered: 1 })
    assert.deepInclude(tracker.report(10, BUSY), { outcome: 'pending', code: 'RECIPIENT_BUSY', delivered: 1 })
    assert.deepInclude(tracker.report(10, DELIVERED), { outcome: 'pending', delivered: 2 })
    assert.deepEqual(tracker.report(11, DELIVERED), { messageId: 'm1', outcome: 'delivered', code: 'DELIVERED', delivered: 3, parts: 3 })
    assert.equal(tracker.waiting, 0)
    assert.isNull(tracker.report(11, DELIVERED))
  })

  test('one part failed for good fails the message with its code; later reports answer null', ({ assert }) => {
    const tracker = new DeliveryTracker()
    tracker.track('m1', [200, 201])
    assert.deepInclude(tracker.report(200, DELIVERED), { outcome: 'pending' })
    assert.deepEqual(tracker.report(201, EXPIRED), { messageId: 'm1', outcome: 'failed', code: 'VALIDITY_PERIOD_EXPIRED', delivered: 1, parts: 2 })
    assert.isNull(tracker.report(200, DELIVERED))
  })

  test('a one-part message; unknown references; a reference taken by a newer message', ({ assert }) => {
    const tracker = new DeliveryTracker()
    assert.isNull(tracker.report(5, DELIVERED))
    tracker.track('old', [254, 255])
    tracker.track('new', [255])
    assert.deepInclude(tracker.report(255, DELIVERED), { messageId: 'new', outcome: 'delivered' })
    assert.deepInclude(tracker.report(254, DELIVERED), { messageId: 'old', outcome: 'pending', delivered: 1, parts: 2 })
    tracker.forget('old')
    assert.equal(tracker.waiting, 0)
    assert.isNull(tracker.report(254, DELIVERED))
  })
})

test.group('PDU codec / delivery reports matched by recipient', () => {
  test('a report about another number does not count; the same number written nationally does', ({ assert }) => {
    const tracker = new DeliveryTracker()
    tracker.track('m1', [30], '+33612345678')
    assert.isNull(tracker.report(30, DELIVERED, '+447911123456'))
    assert.deepInclude(tracker.report(30, DELIVERED, '0612345678'), { messageId: 'm1', outcome: 'delivered' })
  })

  test('short codes are compared whole', ({ assert }) => {
    assert.isTrue(sameRecipient('36179', '36179'))
    assert.isFalse(sameRecipient('36179', '6179'.padStart(5, '0')))
    assert.isFalse(sameRecipient('', '+33612345678'))
  })
})

test.group('PDU codec / delivery tracker kept across a restart', () => {
  test('a snapshot restored matches the reports still to come; it holds the last nine digits of the number', ({ assert }) => {
    const before = new DeliveryTracker()
    before.track('m1', [40, 41], '+33612345678', 1000)
    before.track('m2', [42], '36179', 2000)
    before.report(40, DELIVERED, '+33612345678')
    const snapshot = JSON.parse(JSON.stringify(before.snapshot()))
    assert.deepEqual(snapshot, [
      { messageId: 'm1', references: [40, 41], delivered: [40], recipient: '612345678', at: 1000 },
      { messageId: 'm2', references: [42], delivered: [], recipient: '36179', at: 2000 },
    ])
    const after = new DeliveryTracker()
    after.restore(snapshot)
    assert.isNull(after.report(41, DELIVERED, '+447911123456'))
    assert.deepEqual(after.report(41, DELIVERED, '+33612345678'), { messageId: 'm1', outcome: 'delivered', code: 'DELIVERED', delivered: 2, parts: 2 })
    assert.deepInclude(after.report(42, DELIVERED, '36179'), { messageId: 'm2', outcome: 'delivered' })
  })

  test('a message whose every reference went to newer ones is dropped; old ones are forgotten by age', ({ assert }) => {
    const tracker = new DeliveryTracker()
    tracker.track('old', [1, 2], undefined, 10)
    tracker.track('half', [3], undefined, 20)
    tracker.track('new', [1], undefined, 30)
    assert.equal(tracker.waiting, 3, 'old still owns reference 2')
    tracker.track('newer', [2, 3], undefined, 40)
    assert.deepEqual(tracker.snapshot().map((entry) => entry.messageId), ['new', 'newer'])
    tracker.forgetSentBefore(35)
    assert.deepEqual(tracker.snapshot().map((entry) => entry.messageId), ['newer'])
    assert.isNull(tracker.report(1, DELIVERED))
  })
})
