import { test } from '@japa/runner'
import { decodeStatusReport, deliveryStatus, encodeStatusReport, PduError } from '../../../../agent/src/modem/pdu/index.js'

test.group('PDU codec / SMS-STATUS-REPORT', () => {
  test('a delivered report (python-gsmmodem): reference, recipient, both times at UTC+1', ({ assert }) => {
    const report = decodeStatusReport('0006D60B911326880736F4111011719551401110117195714000')
    assert.isNull(report.serviceCentre)
    assert.equal(report.messageReference, 214)
    assert.deepEqual(report.recipient, { value: '+31628870634', kind: 'international', ton: 1, npi: 1 })
    assert.deepEqual(report.sentAt, { at: new Date('2011-01-11T16:59:15Z'), offsetMinutes: 60 })
    assert.deepEqual(report.dischargedAt, { at: new Date('2011-01-11T16:59:17Z'), offsetMinutes: 60 })
    assert.deepEqual(report.status, { outcome: 'delivered', code: 'DELIVERED', status: 0 })
  })

  test('a round trip with a service centre and a failure', ({ assert }) => {
    const sentAt = new Date('2026-05-04T07:30:00Z')
    const dischargedAt = new Date('2026-05-05T07:30:05Z')
    const report = decodeStatusReport(
      encodeStatusReport({ messageReference: 7, recipient: '+33612345678', sentAt, dischargedAt, status: 0x46, offsetMinutes: 120, serviceCentre: '+33609001390' })
    )
    assert.equal(report.serviceCentre?.value, '+33609001390')
    assert.equal(report.messageReference, 7)
    assert.equal(report.recipient.value, '+33612345678')
    assert.deepEqual(report.sentAt, { at: sentAt, offsetMinutes: 120 })
    assert.deepEqual(report.dischargedAt, { at: dischargedAt, offsetMinutes: 120 })
    assert.deepEqual(report.status, { outcome: 'failed', code: 'VALIDITY_PERIOD_EXPIRED', status: 0x46 })
  })

  test('optional fields after TP-ST are left alone; a PDU of another type is refused', ({ assert }) => {
    assert.equal(decodeStatusReport('0006D60B911326880736F4111011719551401110117195714000' + '0100').status.code, 'DELIVERED')
    assert.throws(() => decodeStatusReport('06917228195339040B917228214365F700003130805120618005D4F29C2E03'), PduError)
  })

  test('TP-ST: completed, still trying, failed, given up, reserved', ({ assert }) => {
    const cases: Array<[number, string, string]> = [
      [0x00, 'delivered', 'DELIVERED'],
      [0x01, 'delivered', 'FORWARDED_UNCONFIRMED'],
      [0x02, 'delivered', 'REPLACED'],
      [0x10, 'delivered', 'DELIVERED_10'],
      [0x20, 'pending', 'CONGESTION'],
      [0x21, 'pending', 'RECIPIENT_BUSY'],
      [0x22, 'pending', 'NO_RESPONSE'],
      [0x25, 'pending', 'RECIPIENT_ERROR'],
      [0x30, 'pending', 'DELIVERY_PENDING_30'],
      [0x40, 'failed', 'REMOTE_PROCEDURE_ERROR'],
      [0x41, 'failed', 'INCOMPATIBLE_DESTINATION'],
      [0x43, 'failed', 'NOT_OBTAINABLE'],
      [0x46, 'failed', 'VALIDITY_PERIOD_EXPIRED'],
      [0x49, 'failed', 'MESSAGE_DOES_NOT_EXIST'],
      [0x4a, 'failed', 'DELIVERY_FAILED_4A'],
      [0x5f, 'failed', 'DELIVERY_FAILED_5F'],
      [0x61, 'failed', 'RECIPIENT_BUSY'],
      [0x65, 'failed', 'RECIPIENT_ERROR'],
      [0x7f, 'failed', 'DELIVERY_FAILED_7F'],
      [0x80, 'failed', 'DELIVERY_FAILED_80'],
      [0xff, 'failed', 'DELIVERY_FAILED_FF'],
    ]
    for (const [status, outcome, code] of cases) assert.deepEqual(deliveryStatus(status), { outcome: outcome as any, code, status }, status.toString(16))
  })
})
