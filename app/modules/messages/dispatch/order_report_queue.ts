import emitter from '@adonisjs/core/services/emitter'
import logger from '@adonisjs/core/services/logger'
import { GroupCommit } from '#core/group_commit/group_commit'
import { OUTCOME_UNKNOWN, PhoneFleet, type OrderReport } from '#modules/devices/public'
import type { MessageLedger } from '#modules/messages/services/message_ledger'

/** Reports stored by one batch at most. */
const BATCH = 2000

/**
 * Group commit for the phones' reports about their orders: every report that arrives while a
 * batch is being written waits for the next one, so ten phones reporting thousands of messages
 * a second cost a few statements per batch rather than one write each. The ledger records what
 * the reports say; then the SIM of an attempt that failed gets its count of the day back (the
 * fleet's), after the message's change is stored: a crash in between leaves the count high (a
 * quota is never overshot), never low, and a repeated report finds nothing to change, so the
 * count is never given back twice. A container singleton.
 */
export class OrderReportQueue {
  #queue: GroupCommit<OrderReport, void>

  constructor(
    private ledger: MessageLedger,
    private fleet: PhoneFleet
  ) {
    this.#queue = new GroupCommit<OrderReport, void>({
      write: (reports) => this.#write(reports),
      maxBatchWeight: BATCH,
      onAfterAnswersError: (error) => logger.error({ err: error }, 'announcing phone reports failed'),
    })
  }

  /**
   * Resolves once what the report says is stored (the phone's frame may then be acked); a
   * report not stored is not acked, and the phone sends it again when it reconnects.
   */
  add(report: OrderReport): Promise<void> {
    return this.#queue.add(report)
  }

  async #write(reports: OrderReport[]) {
    const recorded = await this.ledger.recordReports(
      // The phone cannot tell whether the SMS left (it stopped mid-send): another attempt could
      // send it twice, so the message fails now and the integrator decides (POST .../retry).
      reports.map((report) => (report.kind === 'failed' ? { ...report, retryable: report.errorCode !== OUTCOME_UNKNOWN } : report))
    )
    // The SMS did not leave: its SIM's count of the day is given back (not when the phone cannot
    // tell whether it left: the quota must not be overshot).
    const unsent = recorded.failedAttempts
      .filter((attempt) => attempt.simSlot !== null && attempt.errorCode !== OUTCOME_UNKNOWN)
      .map((attempt) => ({ deviceId: attempt.deviceId, slot: attempt.simSlot!, orderedAt: attempt.orderedAt }))
    const givenBack = await this.fleet.giveBack(unsent)
    return {
      results: reports.map(() => undefined),
      afterAnswers: async () => {
        await recorded.announce()
        if (recorded.retryAt) await emitter.emit('messages:retry_due', { at: recorded.retryAt })
        await givenBack.announce()
      },
    }
  }
}

declare module '@adonisjs/core/types' {
  interface EventsList {
    /** A failed attempt is due again at `at`: the dispatcher wakes then. */
    'messages:retry_due': { at: Date }
  }
}
