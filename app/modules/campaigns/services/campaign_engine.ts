import { inject } from '@adonisjs/core'
import { Emitter } from '@adonisjs/core/events'
import { ApiError } from '#core/http/api_error'
import { Clock } from '#core/time/clock'
import type { Caller } from '#core/http/access'
import { ActivityLog } from '#core/activity/activity_log'
import { PhoneNumbers } from '#core/phone_numbers/phone_numbers'
import { SettingsStore } from '#core/settings/settings_store'
import { dateTimeOf, toIso } from '#core/database/utc_date_time'
import { MessageBacklog, MessageLedger } from '#modules/messages/public'
import { BulkSends } from '#modules/sending/public'
import type Campaign from '#modules/campaigns/models/campaign'
import { resolveAudience, type ResolvedRecipient } from '#modules/campaigns/services/audience_resolution'
import { forcedPhonePaired } from '#modules/campaigns/services/campaign_review'
import { TemplateLibrary } from '#modules/campaigns/services/template_library'
import { isSendingOpen, nextOpening, type SendWindowSettings } from '#modules/campaigns/services/send_window'
import { LiveCampaigns } from '#modules/campaigns/listeners/live_campaigns'
import { CampaignWake, RECONCILE_EVERY_MS } from '#modules/campaigns/jobs/campaign_job'
import { CampaignStore } from '#modules/campaigns/stores/campaign_store'
import { transaction } from '#core/database/transaction'

/** Without a throttle, unsent campaign messages kept waiting for the phones at most. */
export const UNTHROTTLED_BACKLOG = 500
/** A pass every second spreads a throttle evenly over the minute. */
export const PASS_EVERY_MS = 1000

/**
 * The campaign state machine and its job. Launch answers at once; each pass (about every second)
 * resolves newly launched audiences, then per running campaign turns pending recipients into
 * messages, at most what the throttle allowed since the last pass and never more than a small
 * backlog, only while the send window is open; pause, resume and cancel act on the campaign's
 * messages not yet with a phone through the messages module's ledger (a cancel also takes back
 * the orders a phone has not accepted, where its kind can: docs/modules.md, A cancel). Resolved for each use:
 * it keeps nothing between them (the live channel, told of each change, is the singleton).
 */
@inject()
export class CampaignEngine {
  constructor(
    private clock: Clock,
    private settings: SettingsStore,
    private phoneNumbers: PhoneNumbers,
    private ledger: MessageLedger,
    private sends: BulkSends,
    private messages: MessageBacklog,
    private activity: ActivityLog,
    private emitter: Emitter<any>,
    private wakeUp: CampaignWake,
    private live: LiveCampaigns,
    private templates: TemplateLibrary,
    private campaigns: CampaignStore
  ) {}

  /** A campaign changed outside the engine (a scheduled one edited): the next pass looks at it now. */
  wake(): void {
    this.wakeUp.wake()
  }

  async launch(id: number, by: Caller | null): Promise<Campaign> {
    const campaign = await this.#find(id)
    if (campaign.status !== 'draft') throw new ApiError('CAMPAIGN_WRONG_STATE', 'Only a draft campaign can be launched')
    const audience = campaign.audience
    if (!audience.groupIds.length && !audience.contactIds.length && !audience.numbers.length && !audience.importIds.length) {
      throw new ApiError('CAMPAIGN_NOT_READY', 'The campaign has no audience')
    }
    // The template's text is taken now: later edits of the template leave this campaign alone.
    if (campaign.templateId !== null && !campaign.body) campaign.body = await this.templates.bodyOf(campaign.templateId)
    if (!campaign.body || !campaign.body.trim()) throw new ApiError('CAMPAIGN_NOT_READY', 'The campaign has no text: write one or choose a template')
    // Every message forced to a phone that is not paired would fail at once (DEVICE_NOT_PAIRED):
    // refused here rather than made into a whole campaign of failures.
    if (!(await forcedPhonePaired(campaign.deviceId))) throw new ApiError('CAMPAIGN_NOT_READY', 'The phone the campaign forces is not paired')
    const now = this.clock.now()
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
    await this.campaigns.save(campaign)
    if (!later) await this.#log(by, campaign, 'started')
    this.live.changed(campaign.id, true)
    this.wakeUp.wake()
    return campaign
  }

  async pause(id: number, by: Caller | null): Promise<Campaign> {
    const campaign = await this.#find(id)
    if (campaign.status !== 'running' && campaign.status !== 'scheduled') throw new ApiError('CAMPAIGN_WRONG_STATE', 'Only a running or scheduled campaign can be paused')
    const now = this.clock.now()
    if (!(await this.#move(campaign, ['running', 'scheduled'], { status: 'paused' }))) throw new ApiError('CAMPAIGN_WRONG_STATE', 'The campaign changed meanwhile')
    await this.ledger.pause(await this.messages.waitingOf(campaign.id, ['queued', 'pending_quota_exceeded']), now)
    await this.#log(by, campaign, 'paused')
    this.live.changed(campaign.id, true)
    // One more pass catches a message a concurrent pass queued just before the pause.
    this.wakeUp.wake()
    return this.#find(id)
  }

  async resume(id: number, by: Caller | null): Promise<Campaign> {
    const campaign = await this.#find(id)
    if (campaign.status !== 'paused') throw new ApiError('CAMPAIGN_WRONG_STATE', 'Only a paused campaign can be resumed')
    const now = this.clock.now()
    const later = campaign.startAt && campaign.startAt.toMillis() > now.getTime() && !campaign.completedAt && (await this.campaigns.count(campaign.id, 'started')) === 0
    await this.#move(campaign, ['paused'], { status: later ? 'scheduled' : 'running', throttle_credit: 0, last_pass_at: now.toISOString() })
    if (isSendingOpen(now, await this.#window())) {
      await this.ledger.resume(await this.messages.waitingOf(campaign.id, ['paused']), now)
      await this.#move(campaign, ['running', 'scheduled'], { window_held: 0, resumes_at: null })
    }
    await this.#log(by, campaign, 'resumed')
    this.live.changed(campaign.id, true)
    this.wakeUp.wake()
    return this.#find(id)
  }

  async cancel(id: number, by: Caller | null): Promise<Campaign> {
    const campaign = await this.#find(id)
    if (!['running', 'paused', 'scheduled'].includes(campaign.status)) throw new ApiError('CAMPAIGN_WRONG_STATE', 'Only a scheduled, running or paused campaign can be cancelled')
    const now = this.clock.now()
    const moved = await this.#move(campaign, ['running', 'paused', 'scheduled'], {
      status: 'cancelled',
      settled: 0,
      cancelled_at: now.toISOString(),
      resumes_at: null,
    })
    if (!moved) throw new ApiError('CAMPAIGN_WRONG_STATE', 'The campaign changed meanwhile')
    await this.#settleCancel(campaign.id, now)
    await this.#log(by, campaign, 'cancelled')
    this.live.changed(campaign.id, true)
    return this.#find(id)
  }

  /** A new run of the same campaign over the recipients whose message failed. */
  async retryFailed(id: number, by: Caller | null): Promise<Campaign> {
    const campaign = await this.#find(id)
    if (campaign.status !== 'completed') throw new ApiError('CAMPAIGN_WRONG_STATE', 'Only a completed campaign can retry its failed recipients')
    // As at launch: a new run forced to a phone no longer paired would only fail again.
    if (!(await forcedPhonePaired(campaign.deviceId))) throw new ApiError('CAMPAIGN_NOT_READY', 'The phone the campaign forces is not paired')
    const now = this.clock.now().toISOString()
    const retried = await transaction((trx) => this.campaigns.retryFailed(trx, id, campaign.run, now))
    if (!retried) throw new ApiError('CAMPAIGN_NOTHING_TO_RETRY', 'The campaign has no failed recipients to retry')
    await this.#log(by, await this.#find(id), 'restarted for its failed recipients', 'retried')
    this.live.changed(id, true)
    this.wakeUp.wake()
    return this.#find(id)
  }

  /** One pass of the engine's job; answers when the next one is due. */
  async pass(now: Date): Promise<Date | null> {
    const window = await this.#window()
    for (const unsettled of await this.campaigns.inState(['cancelled'], false)) await this.#settleCancel(unsettled.id, now)

    let nextDue: number | null = null
    const due = (at: number) => {
      nextDue = nextDue === null ? at : Math.min(nextDue, at)
    }
    const campaigns = await this.campaigns.inState(['scheduled', 'running', 'paused'])
    for (const campaign of campaigns) {
      if (!campaign.resolved) await this.#resolve(campaign)
      if (campaign.status === 'scheduled') {
        if (campaign.startAt && campaign.startAt.toMillis() > now.getTime()) {
          due(campaign.startAt.toMillis())
          continue
        }
        if (await this.#move(campaign, ['scheduled'], { status: 'running', throttle_credit: 0, last_pass_at: now.toISOString() })) {
          campaign.merge({ status: 'running', throttleCredit: 0, lastPassAt: now.toISOString() })
          await this.#log(null, campaign, 'started')
          this.live.changed(campaign.id, true)
        }
      }
      if (campaign.status === 'paused') {
        // A pause cut short by a restart is finished here (a message queued just before it).
        await this.ledger.pause(await this.messages.waitingOf(campaign.id, ['queued', 'pending_quota_exceeded']), now)
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
    const running = await this.campaigns.inState(['running'])
    for (const campaign of running) {
      if (campaign.updatedAt.toMillis() < startedAt.getTime()) await this.#log(null, campaign, 'resumed after a gateway restart', 'resumed_after_restart')
    }
  }

  /**
   * Recipients' statuses read back from their messages, for those not final: a change whose
   * event was lost (a crash between the two) is corrected here.
   */
  async reconcile(): Promise<void> {
    let after = 0
    for (;;) {
      const rows = await this.campaigns.unsettledRecipients(after)
      if (!rows.length) return
      after = rows[rows.length - 1].id
      const statuses = await this.messages.statusesOf(rows.map((row) => row.message_id))
      const changes = rows.flatMap((row): Array<[number, string]> => {
        const status = statuses.get(row.message_id)?.status ?? 'cancelled'
        return status === row.status ? [] : [[row.message_id, status]]
      })
      await this.campaigns.followMessages(changes, this.clock.now())
    }
  }

  /** Read the audience into recipient rows (once; a pass cut short starts it again from nothing). */
  async #resolve(campaign: Campaign) {
    await this.campaigns.clearRecipients(campaign.id)
    const { localPrefix } = await this.settings.get('reception')
    const now = this.clock.now().toISOString()
    let total = 0
    const insert = async (page: ResolvedRecipient[]) => {
      await this.campaigns.addRecipients(campaign.id, page, now)
      total += page.length
    }
    const { excluded } = await resolveAudience({ audience: campaign.audience, body: campaign.body ?? '', phoneNumbers: this.phoneNumbers, localPrefix, accept: insert })
    const counts = { excluded_opted_out: excluded.optedOut, excluded_duplicates: excluded.duplicates, excluded_invalid: excluded.invalid }
    await this.campaigns.update(campaign.id, { resolved: 1, total, ...counts })
    campaign.merge({ resolved: true, total, excludedOptedOut: excluded.optedOut, excludedDuplicates: excluded.duplicates, excludedInvalid: excluded.invalid })
    this.live.changed(campaign.id, false)
  }

  /** A running campaign's turn: hold or release for the window, materialise, complete. Answers its next due time. */
  async #runPass(campaign: Campaign, now: Date, window: SendWindowSettings): Promise<number | null> {
    if (!isSendingOpen(now, window)) {
      const opening = nextOpening(now, window)
      await this.ledger.pause(await this.messages.waitingOf(campaign.id, ['queued', 'pending_quota_exceeded']), now)
      const resumesAt = opening ? opening.toISOString() : null
      if (!campaign.windowHeld || (campaign.resumesAt ? toIso(campaign.resumesAt) : null) !== resumesAt) {
        await this.#move(campaign, ['running'], { window_held: 1, resumes_at: resumesAt, throttle_credit: 0, last_pass_at: now.toISOString() })
        campaign.windowHeld = true
        this.live.changed(campaign.id, true)
      } else {
        await this.#move(campaign, ['running'], { throttle_credit: 0, last_pass_at: now.toISOString() })
      }
      await this.#completeIfDone(campaign, now)
      return opening ? opening.getTime() : null
    }
    if (campaign.windowHeld) {
      await this.ledger.resume(await this.messages.waitingOf(campaign.id, ['paused']), now)
      // The throttle starts afresh at the opening: the hours held earn no burst.
      await this.#move(campaign, ['running'], { window_held: 0, resumes_at: null, throttle_credit: 0, last_pass_at: now.toISOString() })
      campaign.merge({ windowHeld: false, resumesAt: null, throttleCredit: 0, lastPassAt: now.toISOString() })
      this.live.changed(campaign.id, true)
    }
    const more = await this.#materialise(campaign, now)
    if (await this.#completeIfDone(campaign, now)) return null
    this.live.changed(campaign.id, false)
    return more || campaign.throttlePerMinute ? now.getTime() + PASS_EVERY_MS : now.getTime() + PASS_EVERY_MS * 5
  }

  /** Turns pending recipients into messages, as many as the throttle and the backlog allow; answers whether some are left. */
  async #materialise(campaign: Campaign, now: Date): Promise<boolean> {
    const throttle = campaign.throttlePerMinute
    const elapsed = Math.max(0, now.getTime() - (campaign.lastPassAt ? Date.parse(campaign.lastPassAt) : now.getTime()))
    // The credit never exceeds a minute's worth: a campaign held or idle does not burst afterwards.
    let credit = throttle ? Math.min(throttle, campaign.throttleCredit + (elapsed * throttle) / 60_000) : Number.POSITIVE_INFINITY
    const backlogLimit = throttle ? Math.max(2 * throttle, 1) : UNTHROTTLED_BACKLOG
    const room = Math.max(0, backlogLimit - (await this.messages.backlogOf(campaign.id)))
    const take = Math.min(Math.floor(credit), room)
    let queued = 0
    let left = true
    if (take > 0) {
      const rows = await this.campaigns.pending(campaign.id, take + 1)
      left = rows.length > take
      const turn = rows.slice(0, take)
      if (turn.length) {
        const at = now.toISOString()
        const written = await this.sends.queueMany(
          { campaignId: campaign.id, deviceId: campaign.deviceId, simSlot: campaign.simSlot, sends: turn.map((row) => ({ phone: row.phone, body: row.body })), at: now },
          async (trx, results) => {
            // The recipients and their messages in the same transaction. A pause or cancel that
            // landed while this pass read its rows wins: nothing is written.
            const values = results.map((result, index) =>
              'messageId' in result ? [turn[index].id, result.messageId, 'queued', null] : [turn[index].id, null, 'cancelled', result.refused]
            )
            if (!(await this.campaigns.recordTurn(trx, campaign.id, values, throttle ? credit - turn.length : 0, at))) throw new CampaignStopped()
            queued = results.filter((result) => 'messageId' in result).length
          }
        ).catch((error) => {
          if (error instanceof CampaignStopped) return null
          throw error
        })
        if (!written) return false
        credit = throttle ? credit - turn.length : credit
      }
    } else {
      left = (await this.campaigns.count(campaign.id, 'pending')) > 0
    }
    if (take <= 0 || queued === 0) {
      await this.campaigns.update(campaign.id, { throttle_credit: throttle ? credit : 0, last_pass_at: now.toISOString() })
    }
    campaign.merge({ throttleCredit: throttle ? credit : 0, lastPassAt: now.toISOString() })
    return left
  }

  /** `campaign.completed` once: the guarded move from running happens for one pass only. */
  async #completeIfDone(campaign: Campaign, now: Date): Promise<boolean> {
    if (!campaign.resolved) return false
    if ((await this.campaigns.count(campaign.id, 'open')) > 0) return false
    if (!(await this.#move(campaign, ['running'], { status: 'completed', completed_at: now.toISOString(), window_held: 0, resumes_at: null }))) return false
    await this.#log(null, campaign, 'completed')
    await this.emitter.emit('campaign.completed', { id: String(campaign.id), status: 'completed', at: now } as any)
    this.live.changed(campaign.id, true)
    return true
  }

  async #settleCancel(id: number, now: Date) {
    const waiting = await this.messages.waitingOf(id, ['queued', 'pending_quota_exceeded', 'paused'], { handedOut: true })
    const cancelled = await this.ledger.cancel(waiting, 'CAMPAIGN_CANCELLED', now)
    await this.campaigns.settleCancel(id, cancelled, now.toISOString())
  }

  /** A guarded state change: answers whether the campaign was in one of `from`. */
  async #move(campaign: Campaign, from: string[], change: Record<string, string | number | null>): Promise<boolean> {
    return this.campaigns.move(campaign.id, from, { ...change, updated_at: this.clock.now().toISOString() })
  }

  async #find(id: number): Promise<Campaign> {
    const campaign = await this.campaigns.find(id)
    if (!campaign) throw ApiError.notFound('Campaign')
    return campaign
  }

  async #window(): Promise<SendWindowSettings> {
    return (await this.settings.get('sending')) as unknown as SendWindowSettings
  }

  /** `by`: the caller who asked (null: the engine's own pass). */
  async #log(by: Caller | null, campaign: Campaign, what: string, kind: string = what) {
    await this.activity.actingFor(by).info('campaigns', `campaign.${kind}`, `Campaign "${campaign.name}" ${what}`, { campaignId: String(campaign.id) })
  }
}

/** Thrown inside a materialisation's transaction to roll it back: the campaign stopped meanwhile. */
class CampaignStopped extends Error {}
