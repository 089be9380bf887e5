import { test } from '@japa/runner'
import { decodeDeliver, encodeDeliver, REASSEMBLY_TIMEOUT_MS, Reassembly, type SmsDeliver } from '../../../../agent/src/modem/pdu/index.js'

const sentAt = new Date('2026-05-04T07:30:00Z')

function part(text: string, sequence: number, total: number, options: { from?: string; reference?: number; referenceBits?: 8 | 16 } = {}): SmsDeliver {
  return decodeDeliver(
    encodeDeliver({
      from: options.from ?? '+33612345678',
      text,
      sentAt,
      concatenation: { reference: options.reference ?? 42, referenceBits: options.referenceBits ?? 8, total, sequence },
    })
  )
}

test.group('PDU codec / reassembly', (group) => {
  let now = 0
  let reassembly: Reassembly
  group.each.setup(() => {
    now = 1_000_000
    reassembly = new Reassembly({ now: () => now })
  })

  test('a whole SMS (no header, or a total of 1) comes out at once', ({ assert }) => {
    const whole = decodeDeliver(encodeDeliver({ from: '+33612345678', text: 'Hello', sentAt }))
    assert.deepInclude(reassembly.add(whole), { text: 'Hello', complete: true, missing: [] })
    assert.deepInclude(reassembly.add(part('Alone', 1, 1)), { text: 'Alone', complete: true })
    assert.equal(reassembly.waiting, 0)
  })

  test('parts in any order make one message in their order; a repeated part is ignored', ({ assert }) => {
    assert.isNull(reassembly.add(part('three', 3, 3)))
    assert.isNull(reassembly.add(part('one ', 1, 3)))
    assert.isNull(reassembly.add(part('one ', 1, 3)))
    assert.equal(reassembly.waiting, 1)
    const message = reassembly.add(part('two ', 2, 3))!
    assert.equal(message.text, 'one two three')
    assert.isTrue(message.complete)
    assert.deepEqual(
      message.parts.map((sms) => sms.concatenation?.sequence),
      [1, 2, 3]
    )
    assert.equal(message.from.value, '+33612345678')
    assert.equal(reassembly.waiting, 0)
    // The same reference later is a new message.
    assert.isNull(reassembly.add(part('one ', 1, 3)))
  })

  test('parts are told apart by sender, reference, its size and total', ({ assert }) => {
    assert.isNull(reassembly.add(part('A1', 1, 2)))
    assert.isNull(reassembly.add(part('B2', 2, 2, { from: '+33698765432' })))
    assert.isNull(reassembly.add(part('C2', 2, 2, { reference: 43 })))
    assert.isNull(reassembly.add(part('D2', 2, 2, { referenceBits: 16 })))
    assert.isNull(reassembly.add(part('E2', 2, 3)))
    assert.equal(reassembly.waiting, 5)
    assert.equal(reassembly.add(part('A2', 2, 2))?.text, 'A1A2')
  })

  test('past 10 minutes from the first part, what came is given out in order, marked incomplete', ({ assert }) => {
    assert.isNull(reassembly.add(part('four', 4, 4)))
    now += 60_000
    assert.isNull(reassembly.add(part('two ', 2, 4)))
    assert.isNull(reassembly.add(part('other', 1, 2, { reference: 9 })))
    now += REASSEMBLY_TIMEOUT_MS - 60_000 - 1
    assert.deepEqual(reassembly.expire(now), [])
    now += 1
    const [expired, ...others] = reassembly.expire(now)
    assert.deepEqual(others, [])
    assert.deepInclude(expired, { text: 'two four', complete: false, missing: [1, 3] })
    assert.equal(reassembly.waiting, 1)
    assert.equal(REASSEMBLY_TIMEOUT_MS, 10 * 60_000)
    // expire() without an argument reads the injected clock.
    now += 60_000
    assert.deepInclude(reassembly.expire()[0], { text: 'other', complete: false, missing: [2] })
  })

  test('binary parts join their data', ({ assert }) => {
    const binary = (sequence: number, data: string): SmsDeliver => ({ ...part('', sequence, 2), binary: true, dataHex: data })
    assert.isNull(reassembly.add(binary(2, 'BEEF')))
    assert.deepInclude(reassembly.add(binary(1, 'DEAD')), { binary: true, dataHex: 'DEADBEEF', text: '' })
  })
})
