import db from '@adonisjs/lucid/services/db'
import emitter from '@adonisjs/core/services/emitter'
import logger from '@adonisjs/core/services/logger'
import type { SettingsStore } from '#core/settings/settings_store'
import { GroupCommit } from '#core/group_commit/group_commit'
import type { MessageLedger } from '#modules/messages/public'
import { giveBackSimUse } from '#modules/devices/services/sim_usage'

/** A phone's failure reason saying it does not know whether the SMS left. */
export const OUTCOME_UNKNOWN = 'OUTCOME_UNKNOWN'

/** What a phone said about one of its orders (docs/device-protocol.md, frames up). */
export type OrderReport =
  | { kind: 'accepted' | 'sent' | 'delivered'; deviceId: number; messageId: number; at: Date }
  | { kind: 'failed'; deviceId: number; messageId: number; at: Date; errorCode: string; maxAttempts: number }

/** Reports stored by one batch at most. */
const BATCH = 2000

/**
 * Group commit for the phones' reports about their orders: every report that arrives while a
 * batch is being written waits for the next one, so ten phones reporting thousands of messages
 * a second cost a few statements per batch rather than one write each. The messages module
 * records what the reports say; this queue gives back the day count of a SIM whose attempt
 * failed, after the message's change is stored: a crash in between leaves the count high
 * (a quota is never overshot), never low, and a repeated report finds nothing to change, so the
 * count is never given back twice. A container singleton.
 */
export class ReportQueue {
  #queue: GroupCommit<OrderReport, void>

  constructor(
    private ledger: () => Promise<MessageLedger>,
    private settings: () => Promise<SettingsStore>
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
    const recorded = await (await this.ledger()).recordReports(
      // The phone cannot tell whether the SMS left (it stopped mid-send): another attempt could
      // send it twice, so the message fails now and the integrator decides (POST .../retry).
      reports.map((report) => (report.kind === 'failed' ? { ...report, retryable: report.errorCode !== OUTCOME_UNKNOWN } : report))
    )
    // The SMS did not leave: its SIM's count of the day is given back (not when the phone cannot
    // tell whether it left: the quota must not be overshot).
    const unsent = recorded.failedAttempts
      .filter((attempt) => attempt.simSlot !== null && attempt.errorCode !== OUTCOME_UNKNOWN)
      .map((attempt) => ({ deviceId: attempt.deviceId, slot: attempt.simSlot!, orderedAt: attempt.orderedAt }))
    const freed = unsent.length ? await giveBackSimUse(db.connection(), unsent, (await (await this.settings()).get('sending')).timezone) : []
    return {
      results: reports.map(() => undefined),
      afterAnswers: async () => {
        await recorded.announce()
        if (recorded.retryAt) await emitter.emit('devices:retry_due', { at: recorded.retryAt })
        for (const deviceId of freed) await emitter.emit('devices:quota_changed', { deviceId })
      },
    }
  }
}
