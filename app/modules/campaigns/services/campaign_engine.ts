import db from '@adonisjs/lucid/services/db'
import type { Emitter } from '@adonisjs/core/events'
import { ApiError } from '#core/http/api_error'
import type { Clock } from '#core/time/clock'
import type { ActivityLog } from '#core/activity/activity_log'
import type { PhoneNumbers } from '#core/phone_numbers/phone_numbers'
import type { SettingsStore } from '#core/settings/settings_store'
import { dateTimeOf, toIso } from '#core/database/utc_date_time'
import type { BulkSends, MessageLedger } from '#modules/messages/public'
import Campaign from '#modules/campaigns/models/campaign'
import { resolveAudience, type ResolvedRecipient } from '#modules/campaigns/services/audience_resolution'
import { FINAL_STATUSES } from '#modules/campaigns/services/campaign_progress'
import { forcedPhonePaired } from '#modules/campaigns/services/campaign_review'
import { isSendingOpen, nextOpening, type SendWindowSettings } from '#modules/campaigns/services/send_window'
import { transaction } from '#core/database/transaction'

/** Without a throttle, unsent campaign messages kept waiting for the phones at most. */
export const UNTHROTTLED_BACKLOG = 500
/** A pass every second spreads a throttle evenly over the minute. */
export const PASS_EVERY_MS = 1000
/** Recipients' statuses are read back from the messages this often (a crash between a change and its event). */
export const RECONCILE_EVERY_MS = 60_000
/** Rows per multi-row insert of resolved recipients. */
const INSERT_CHUNK = 500

export interface EngineDependencies {
  clock: Clock
  settings: SettingsStore
  phoneNumbers: PhoneNumbers
  ledger: MessageLedger
  sends: BulkSends
  activity: ActivityLog
  emitter: Emitter<any>
  /** Makes the engine's job due (now or at `at`). */
  wake: (at?: Date) => void
  /** A campaign's status or progress changed: the live channel decides when to tell. */
  changed: (campaignId: number, statusChanged: boolean) => void
  /** The text of a template (launch snapshots it), or null when it does not exist. */
  templateBody: (templateId: number) => Promise<string | null>
}

/**
 * The campaign state machine and its job. Launch answers at once; each pass (about every second)
 * resolves newly launched audiences, then per running campaign turns pending recipients into
 * messages, at most what the throttle allowed since the last pass and never more than a small
 * backlog, only while the send window is open; pause, resume and cancel act on the campaign's
 * messages not yet with a phone through the messages module's ledger.
 */
export class CampaignEngine {
  constructor(private deps: EngineDependencies) {}

  /** A campaign changed outside the engine (a scheduled one edited): the next pass looks at it now. */
  wake(): void {
    this.deps.wake()
  }

  async launch(id: number): Promise<Campaign> {
    const campaign = await this.#find(id)
    if (campaign.status !== 'draft') throw new ApiError('CAMPAIGN_WRONG_STATE', 'Only a draft campaign can be launched')
    const audience = campaign.audience
    if (!audience.groupIds.length && !audience.contactIds.length && !audience.numbers.length && !audience.importIds.length) {
      throw new ApiError('CAMPAIGN_NOT_READY', 'The campaign has no audience')
    }
    // The template's text is taken now: later edits of the template leave this campaign alone.
    if (campaign.templateId !== null && !campaign.body) campaign.body = await this.deps.templateBody(campaign.templateId)
    if (!campaign.body || !campaign.body.trim()) throw new ApiError('CAMPAIGN_NOT_READY', 'The campaign has no text: write one or choose a template')
    // Every message forced to a phone that is not paired would fail at once (DEVICE_NOT_PAIRED):
    // refused here rather than made into a whole campaign of failures.
    if (!(await forcedPhonePaired(campaign.deviceId))) throw new ApiError('CAMPAIGN_NOT_READY', 'The phone the campaign forces is not paired')
    const now = this.deps.clock.now()
    const later = campaign.startAt && campaign.startAt.toMillis() > now.getTime()
    campaign.merge({
      status: later ? 'scheduled' : 'running',
      run: 1,
      resolved: false,
      throttleCredit: 0,
      lastPassAt: now.toISOString(),
      launchedAt: dateTimeOf(now),
      updatedAt: dateTimeOf(now),
    })
    await campaign.save()
    if (!later) await this.#log(campaign, 'started')
    this.deps.changed(campaign.id, true)
    this.deps.wake()
    return campaign
  }

  async pause(id: number): Promise<Campaign> {
    const campaign = await this.#find(id)
    if (campaign.status !== 'running' && campaign.status !== 'scheduled') throw new ApiError('CAMPAIGN_WRONG_STATE', 'Only a running or scheduled campaign can be paused')
    const now = this.deps.clock.now()
    if (!(await this.#move(campaign, ['running', 'scheduled'], { status: 'paused' }))) throw new ApiError('CAMPAIGN_WRONG_STATE', 'The campaign changed meanwhile')
    await this.deps.ledger.pause(await this.deps.sends.waitingOf(campaign.id, ['queued', 'pending_quota_exceeded']), now)
    await this.#log(campaign, 'paused')
    this.deps.changed(campaign.id, true)
    // One more pass catches a message a concurrent pass queued just before the pause.
    this.deps.wake()
    return this.#find(id)
  }

  async resume(id: number): Promise<Campaign> {
    const campaign = await this.#find(id)
    if (campaign.status !== 'paused') throw new ApiError('CAMPAIGN_WRONG_STATE', 'Only a paused campaign can be resumed')
    const now = this.deps.clock.now()
    const later = campaign.startAt && campaign.startAt.toMillis() > now.getTime() && !campaign.completedAt && (await this.#neverStarted(campaign))
    await this.#move(campaign, ['paused'], { status: later ? 'scheduled' : 'running', throttle_credit: 0, last_pass_at: now.toISOString() })
    if (isSendingOpen(now, await this.#window())) {
      await this.deps.ledger.resume(await this.deps.sends.waitingOf(campaign.id, ['paused']), now)
      await this.#move(campaign, ['running', 'scheduled'], { window_held: 0, resumes_at: null })
    }
    await this.#log(campaign, 'resumed')
    this.deps.changed(campaign.id, true)
    this.deps.wake()
    return this.#find(id)
  }

  async cancel(id: number): Promise<Campaign> {
    const campaign = await this.#find(id)
    if (!['running', 'paused', 'scheduled'].includes(campaign.status)) throw new ApiError('CAMPAIGN_WRONG_STATE', 'Only a scheduled, running or paused campaign can be cancelled')
    const now = this.deps.clock.now()
    const moved = await this.#move(campaign, ['running', 'paused', 'scheduled'], {
      status: 'cancelled',
      settled: 0,
      cancelled_at: now.toISOString(),
      resumes_at: null,
    })
    if (!moved) throw new ApiError('CAMPAIGN_WRONG_STATE', 'The campaign changed meanwhile')
    await this.#settleCancel(campaign.id, now)
    await this.#log(campaign, 'cancelled')
    this.deps.changed(campaign.id, true)
    return this.#find(id)
  }

  /** A new run of the same campaign over the recipients whose message failed. */
  async retryFailed(id: number): Promise<Campaign> {
    const campaign = await this.#find(id)
    if (campaign.status !== 'completed') throw new ApiError('CAMPAIGN_WRONG_STATE', 'Only a completed campaign can retry its failed recipients')
    // As at launch: a new run forced to a phone no longer paired would only fail again.
    if (!(await forcedPhonePaired(campaign.deviceId))) throw new ApiError('CAMPAIGN_NOT_READY', 'The phone the campaign forces is not paired')
    const now = this.deps.clock.now().toISOString()
    const retried = await transaction(async (trx) => {
      const [{ n }] = await trx.rawQuery(`SELECT COUNT(*) AS n FROM campaign_recipients WHERE campaign_id = ? AND replaced = 0 AND status = 'failed'`, [id])
      if (!Number(n)) return 0
      await trx.rawQuery(
        `INSERT INTO campaign_recipients (campaign_id, run, contact_id, phone, body, status, error_code, message_id, replaced, updated_at)
         SELECT campaign_id, ?, contact_id, phone, body, 'pending', NULL, NULL, 0, ? FROM campaign_recipients
         WHERE campaign_id = ? AND replaced = 0 AND status = 'failed' ORDER BY id`,
        [campaign.run + 1, now, id]
      )
      await trx.rawQuery(`UPDATE campaign_recipients SET replaced = 1 WHERE campaign_id = ? AND replaced = 0 AND status = 'failed' AND run = ?`, [id, campaign.run])
      await trx.rawQuery(
        `UPDATE campaigns SET status = 'running', run = run + 1, completed_at = NULL, throttle_credit = 0, last_pass_at = ?, updated_at = ? WHERE id = ? AND status = 'completed'`,
        [now, now, id]
      )
      return Number(n)
    })
    if (!retried) throw new ApiError('CAMPAIGN_NOTHING_TO_RETRY', 'The campaign has no failed recipients to retry')
    await this.#log(await this.#find(id), 'restarted for its failed recipients', 'retried')
    this.deps.changed(id, true)
    this.deps.wake()
    return this.#find(id)
  }

  /** One pass of the engine's job; answers when the next one is due. */
  async pass(now: Date): Promise<Date | null> {
    const window = await this.#window()
    for (const unsettled of await Campaign.query().where('status', 'cancelled').where('settled', false)) await this.#settleCancel(unsettled.id, now)

    let nextDue: number | null = null
    const due = (at: number) => {
      nextDue = nextDue === null ? at : Math.min(nextDue, at)
    }
    const campaigns = await Campaign.query().whereIn('status', ['scheduled', 'running', 'paused']).orderBy('id')
    for (const campaign of campaigns) {
      if (!campaign.resolved) await this.#resolve(campaign)
      if (campaign.status === 'scheduled') {
        if (campaign.startAt && campaign.startAt.toMillis() > now.getTime()) {
          due(campaign.startAt.toMillis())
          continue
        }
        if (await this.#move(campaign, ['scheduled'], { status: 'running', throttle_credit: 0, last_pass_at: now.toISOString() })) {
          campaign.merge({ status: 'running', throttleCredit: 0, lastPassAt: now.toISOString() })
          await this.#log(campaign, 'started')
          this.deps.changed(campaign.id, true)
        }
      }
      if (campaign.status === 'paused') {
        // A pause cut short by a restart is finished here (a message queued just before it).
        await this.deps.ledger.pause(await this.deps.sends.waitingOf(campaign.id, ['queued', 'pending_quota_exceeded']), now)
        continue
      }
      const next = await this.#runPass(campaign, now, window)
      if (next !== null) due(next)
    }
    // Held and paused campaigns sleep until their opening or a person; their recipients follow the events meanwhile.
    if (campaigns.some((campaign) => campaign.status === 'running' && !campaign.windowHeld)) due(now.getTime() + RECONCILE_EVERY_MS)
    return nextDue === null ? null : new Date(nextDue)
  }

  /**
   * The job's first pass in this process: every campaign still running from before (its row last
   * changed before `startedAt`) carries on by itself, and the Activity log says so, once per
   * restart (kind `campaign.resumed_after_restart`). Paused and scheduled ones stay as they were.
   */
  async announceRestart(startedAt: Date): Promise<void> {
    const running = await Campaign.query().where('status', 'running').orderBy('id')
    for (const campaign of running) {
      if (campaign.updatedAt.toMillis() < startedAt.getTime()) await this.#log(campaign, 'resumed after a gateway restart', 'resumed_after_restart')
    }
  }

  /**
   * Recipients' statuses read back from their messages, for those not final: a change whose
   * event was lost (a crash between the two) is corrected here.
   */
  async reconcile(): Promise<void> {
    let after = 0
    for (;;) {
      const rows = await db.rawQuery(
        `SELECT r.id, r.message_id, r.status FROM campaign_recipients r JOIN campaigns c ON c.id = r.campaign_id
         WHERE c.status IN ('running', 'paused', 'cancelled', 'scheduled') AND r.id > ? AND r.message_id IS NOT NULL
           AND r.status NOT IN (${FINAL_STATUSES.map(() => '?').join(', ')})
         ORDER BY r.id LIMIT 5000`,
        [after, ...FINAL_STATUSES]
      )
      if (!rows.length) return
      after = rows[rows.length - 1].id
      const statuses = await this.deps.sends.statusesOf(rows.map((row: any) => row.message_id))
      const changes = rows.flatMap((row: any) => {
        const status = statuses.get(row.message_id)?.status ?? 'cancelled'
        return status === row.status ? [] : [[row.message_id, status]]
      })
      await recordMessageStatuses(changes as Array<[number, string]>, this.deps.clock.now())
    }
  }

  /** Read the audience into recipient rows (once; a pass cut short starts it again from nothing). */
  async #resolve(campaign: Campaign) {
    await db.from('campaign_recipients').where('campaign_id', campaign.id).delete()
    const { localPrefix } = await this.deps.settings.get('reception')
    const now = this.deps.clock.now().toISOString()
    let total = 0
    const insert = async (page: ResolvedRecipient[]) => {
      for (let start = 0; start < page.length; start += INSERT_CHUNK) {
        const chunk = page.slice(start, start + INSERT_CHUNK)
        await db.rawQuery(
          `INSERT INTO campaign_recipients (campaign_id, run, contact_id, phone, body, status, replaced, updated_at)
           VALUES ${chunk.map(() => `(?, 1, ?, ?, ?, 'pending', 0, ?)`).join(', ')}`,
          chunk.flatMap((recipient) => [campaign.id, recipient.contactId, recipient.phone, recipient.body, now])
        )
      }
      total += page.length
    }
    const { excluded } = await resolveAudience({
      audience: campaign.audience,
      body: campaign.body ?? '',
      phoneNumbers: this.deps.phoneNumbers,
      localPrefix,
      accept: insert,
    })
    await db.from('campaigns').where('id', campaign.id).update({
      resolved: 1,
      total,
      excluded_opted_out: excluded.optedOut,
      excluded_duplicates: excluded.duplicates,
      excluded_invalid: excluded.invalid,
    })
    campaign.merge({ resolved: true, total, excludedOptedOut: excluded.optedOut, excludedDuplicates: excluded.duplicates, excludedInvalid: excluded.invalid })
    this.deps.changed(campaign.id, false)
  }

  /** A running campaign's turn: hold or release for the window, materialise, complete. Answers its next due time. */
  async #runPass(campaign: Campaign, now: Date, window: SendWindowSettings): Promise<number | null> {
    if (!isSendingOpen(now, window)) {
      const opening = nextOpening(now, window)
      await this.deps.ledger.pause(await this.deps.sends.waitingOf(campaign.id, ['queued', 'pending_quota_exceeded']), now)
      const resumesAt = opening ? opening.toISOString() : null
      if (!campaign.windowHeld || (campaign.resumesAt ? toIso(campaign.resumesAt) : null) !== resumesAt) {
        await this.#move(campaign, ['running'], { window_held: 1, resumes_at: resumesAt, throttle_credit: 0, last_pass_at: now.toISOString() })
        campaign.windowHeld = true
        this.deps.changed(campaign.id, true)
      } else {
        await this.#move(campaign, ['running'], { throttle_credit: 0, last_pass_at: now.toISOString() })
      }
      await this.#completeIfDone(campaign, now)
      return opening ? opening.getTime() : null
    }
    if (campaign.windowHeld) {
      await this.deps.ledger.resume(await this.deps.sends.waitingOf(campaign.id, ['paused']), now)
      // The throttle starts afresh at the opening: the hours held earn no burst.
      await this.#move(campaign, ['running'], { window_held: 0, resumes_at: null, throttle_credit: 0, last_pass_at: now.toISOString() })
      campaign.merge({ windowHeld: false, resumesAt: null, throttleCredit: 0, lastPassAt: now.toISOString() })
      this.deps.changed(campaign.id, true)
    }
    const more = await this.#materialise(campaign, now)
    if (await this.#completeIfDone(campaign, now)) return null
    this.deps.changed(campaign.id, false)
    return more || campaign.throttlePerMinute ? now.getTime() + PASS_EVERY_MS : now.getTime() + PASS_EVERY_MS * 5
  }

  /** Turns pending recipients into messages, as many as the throttle and the backlog allow; answers whether some are left. */
  async #materialise(campaign: Campaign, now: Date): Promise<boolean> {
    const throttle = campaign.throttlePerMinute
    const elapsed = Math.max(0, now.getTime() - (campaign.lastPassAt ? Date.parse(campaign.lastPassAt) : now.getTime()))
    // The credit never exceeds a minute's worth: a campaign held or idle does not burst afterwards.
    let credit = throttle ? Math.min(throttle, campaign.throttleCredit + (elapsed * throttle) / 60_000) : Number.POSITIVE_INFINITY
    const backlogLimit = throttle ? Math.max(2 * throttle, 1) : UNTHROTTLED_BACKLOG
    const room = Math.max(0, backlogLimit - (await this.deps.sends.backlogOf(campaign.id)))
    const take = Math.min(Math.floor(credit), room)
    let queued = 0
    let left = true
    if (take > 0) {
      const rows = await db
        .from('campaign_recipients')
        .where('campaign_id', campaign.id)
        .where('replaced', 0)
        .where('status', 'pending')
        .orderBy('id', 'asc')
        .limit(take + 1)
        .select('id', 'phone', 'body')
      left = rows.length > take
      const turn = rows.slice(0, take)
      if (turn.length) {
        const at = now.toISOString()
        const written = await this.deps.sends.queueMany(
          { campaignId: campaign.id, deviceId: campaign.deviceId, simSlot: campaign.simSlot, sends: turn.map((row) => ({ phone: row.phone, body: row.body })), at: now },
          async (trx, results) => {
            // A pause or cancel that landed while this pass read its rows wins: nothing is written.
            const [current] = await trx.rawQuery(`SELECT status FROM campaigns WHERE id = ?`, [campaign.id])
            if (current?.status !== 'running') throw new CampaignStopped()
            // The recipients and their messages in the same transaction; the pending guard makes a
            // second writer (there is none: the job is single-flight) change nothing.
            const values = results.map((result, index) =>
              'messageId' in result ? [turn[index].id, result.messageId, 'queued', null] : [turn[index].id, null, 'cancelled', result.refused]
            )
            await trx.rawQuery(
              `WITH v AS (SELECT json_extract(value, '$[0]') AS id, json_extract(value, '$[1]') AS message_id,
                   json_extract(value, '$[2]') AS status, json_extract(value, '$[3]') AS error_code FROM json_each(?))
               UPDATE campaign_recipients SET message_id = v.message_id, status = v.status, error_code = v.error_code, updated_at = ?
               FROM v WHERE campaign_recipients.id = v.id AND campaign_recipients.status = 'pending'`,
              [JSON.stringify(values), at]
            )
            queued = results.filter((result) => 'messageId' in result).length
            const remaining = throttle ? credit - turn.length : 0
            await trx.rawQuery(`UPDATE campaigns SET throttle_credit = ?, last_pass_at = ?, updated_at = ? WHERE id = ?`, [remaining, at, at, campaign.id])
          }
        ).catch((error) => {
          if (error instanceof CampaignStopped) return null
          throw error
        })
        if (!written) return false
        credit = throttle ? credit - turn.length : credit
      }
    } else {
      const [{ n }] = await db.rawQuery(`SELECT COUNT(*) AS n FROM campaign_recipients WHERE campaign_id = ? AND replaced = 0 AND status = 'pending'`, [campaign.id])
      left = Number(n) > 0
    }
    if (take <= 0 || queued === 0) {
      await db.from('campaigns').where('id', campaign.id).update({ throttle_credit: throttle ? credit : 0, last_pass_at: now.toISOString() })
    }
    campaign.merge({ throttleCredit: throttle ? credit : 0, lastPassAt: now.toISOString() })
    return left
  }

  /** `campaign.completed` once: the guarded move from running happens for one pass only. */
  async #completeIfDone(campaign: Campaign, now: Date): Promise<boolean> {
    if (!campaign.resolved) return false
    const [{ open }] = await db.rawQuery(
      `SELECT COUNT(*) AS open FROM campaign_recipients WHERE campaign_id = ? AND replaced = 0
       AND status NOT IN (${FINAL_STATUSES.map(() => '?').join(', ')})`,
      [campaign.id, ...FINAL_STATUSES]
    )
    if (Number(open) > 0) return false
    if (!(await this.#move(campaign, ['running'], { status: 'completed', completed_at: now.toISOString(), window_held: 0, resumes_at: null }))) return false
    await this.#log(campaign, 'completed')
    await this.deps.emitter.emit('campaign.completed', { id: String(campaign.id), status: 'completed', at: now } as any)
    this.deps.changed(campaign.id, true)
    return true
  }

  async #settleCancel(id: number, now: Date) {
    const cancelled = await this.deps.ledger.cancel(await this.deps.sends.waitingOf(id, ['queued', 'pending_quota_exceeded', 'paused']), 'CAMPAIGN_CANCELLED', now)
    const at = now.toISOString()
    for (let start = 0; start < cancelled.length; start += 5000) {
      await db.rawQuery(`UPDATE campaign_recipients SET status = 'cancelled', error_code = 'CAMPAIGN_CANCELLED', updated_at = ? WHERE message_id IN (SELECT value FROM json_each(?))`, [
        at,
        JSON.stringify(cancelled.slice(start, start + 5000)),
      ])
    }
    await db.rawQuery(`UPDATE campaign_recipients SET status = 'cancelled', error_code = 'CAMPAIGN_CANCELLED', updated_at = ? WHERE campaign_id = ? AND status = 'pending'`, [at, id])
    await db.from('campaigns').where('id', id).update({ settled: 1 })
  }

  /** A guarded state change: answers whether the campaign was in one of `from`. */
  async #move(campaign: Campaign, from: string[], change: Record<string, string | number | null>): Promise<boolean> {
    const at = this.deps.clock.now().toISOString()
    const updated = await db.from('campaigns').where('id', campaign.id).whereIn('status', from).update({ ...change, updated_at: at })
    return Number(Array.isArray(updated) ? updated[0] : updated) > 0
  }

  async #neverStarted(campaign: Campaign): Promise<boolean> {
    const [{ n }] = await db.rawQuery(`SELECT COUNT(*) AS n FROM campaign_recipients WHERE campaign_id = ? AND message_id IS NOT NULL`, [campaign.id])
    return Number(n) === 0
  }

  async #find(id: number): Promise<Campaign> {
    const campaign = await Campaign.find(id)
    if (!campaign) throw ApiError.notFound('Campaign')
    return campaign
  }

  async #window(): Promise<SendWindowSettings> {
    return (await this.deps.settings.get('sending')) as unknown as SendWindowSettings
  }

  async #log(campaign: Campaign, what: string, kind: string = what) {
    await this.deps.activity.info('campaigns', `campaign.${kind}`, `Campaign "${campaign.name}" ${what}`, { campaignId: String(campaign.id) })
  }
}

/** Thrown inside a materialisation's transaction to roll it back: the campaign stopped meanwhile. */
class CampaignStopped extends Error {}

/**
 * Recipients follow their messages: one statement for a batch of (message id, status) pairs. A
 * message waiting for a quota counts as queued; a deleted one as cancelled. Answers the
 * campaigns touched.
 */
export async function recordMessageStatuses(changes: Array<[number, string]>, at: Date): Promise<number[]> {
  if (!changes.length) return []
  const rows = await db.rawQuery(
    `WITH c AS (SELECT json_extract(value, '$[0]') AS message_id, json_extract(value, '$[1]') AS status FROM json_each(?))
     UPDATE campaign_recipients SET status = c.status, updated_at = ?
     FROM c WHERE campaign_recipients.message_id = c.message_id AND campaign_recipients.status <> c.status
     RETURNING campaign_id`,
    [JSON.stringify(changes.map(([id, status]) => [id, status === 'deleted' ? 'cancelled' : status])), at.toISOString()]
  )
  return [...new Set<number>(rows.map((row: { campaign_id: number }) => row.campaign_id))]
}
