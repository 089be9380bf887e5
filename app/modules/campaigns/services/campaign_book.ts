import { inject } from '@adonisjs/core'
import { Clock } from '#core/time/clock'
import { ApiError } from '#core/http/api_error'
import { SettingsStore } from '#core/settings/settings_store'
import { dateTimeOf, toIso } from '#core/database/utc_date_time'
import { decodeCursor, encodeCursor, DEFAULT_PAGE_SIZE, type PageRequest } from '#core/pagination/keyset_page'
import { MessageBacklog } from '#modules/messages/public'
import type Campaign from '#modules/campaigns/models/campaign'
import type { CampaignAudience, CampaignStatus } from '#modules/campaigns/models/campaign'
import { CampaignStore } from '#modules/campaigns/stores/campaign_store'
import { progressOf } from '#modules/campaigns/services/campaign_progress'
import type { SendWindowSettings } from '#modules/campaigns/services/send_window'
import { DateTime } from 'luxon'
import type { PageOf } from '#core/contract/schemas'
import type { CampaignResource, RecipientResource, campaignSchema, recipientSchema } from '#modules/campaigns/schemas'

export interface CampaignFields {
  name?: string
  body?: string | null
  templateId?: string | null
  audience?: Partial<CampaignAudience>
  deviceId?: string | null
  simSlot?: number | null
  startAt?: string | null
  throttlePerMinute?: number | null
}

function audienceOf(audience: Partial<CampaignAudience> | undefined, previous?: CampaignAudience): CampaignAudience {
  const base = previous ?? { groupIds: [], contactIds: [], numbers: [], importIds: [] }
  if (!audience) return base
  return {
    groupIds: [...new Set(audience.groupIds ?? base.groupIds)],
    contactIds: [...new Set(audience.contactIds ?? base.contactIds)],
    numbers: audience.numbers ?? base.numbers,
    importIds: [...new Set(audience.importIds ?? base.importIds)],
  }
}

/** Reading and editing campaigns, and their recipients; the engine (campaign_engine.ts) moves them. */
@inject()
export class CampaignBook {
  constructor(
    private clock: Clock,
    private settings: SettingsStore,
    private messages: MessageBacklog,
    private campaigns: CampaignStore
  ) {}

  async windowSettings(): Promise<SendWindowSettings> {
    return (await this.settings.get('sending')) as unknown as SendWindowSettings
  }

  /** The resource: the row, its counts, pace and estimated end. */
  async present(campaign: Campaign): Promise<CampaignResource> {
    const progress = await progressOf(campaign, this.clock.now(), await this.windowSettings())
    return {
      id: String(campaign.id),
      name: campaign.name,
      status: campaign.status,
      body: campaign.body,
      templateId: campaign.templateId === null ? null : String(campaign.templateId),
      audience: campaign.audience,
      deviceId: campaign.deviceId,
      // Slot 0 or 1: the only ones the campaign's validator accepts.
      simSlot: campaign.simSlot as 0 | 1 | null,
      startAt: campaign.startAt ? toIso(campaign.startAt) : null,
      throttlePerMinute: campaign.throttlePerMinute,
      run: campaign.run,
      ...progress,
      createdAt: toIso(campaign.createdAt),
      updatedAt: toIso(campaign.updatedAt),
      launchedAt: campaign.launchedAt ? toIso(campaign.launchedAt) : null,
      completedAt: campaign.completedAt ? toIso(campaign.completedAt) : null,
      cancelledAt: campaign.cancelledAt ? toIso(campaign.cancelledAt) : null,
    }
  }

  async list(filters: PageRequest & { status?: CampaignStatus }): Promise<PageOf<typeof campaignSchema>> {
    const page = await this.campaigns.page(filters)
    return { data: await Promise.all(page.data.map((campaign) => this.present(campaign))), nextCursor: page.nextCursor }
  }

  async find(id: number): Promise<Campaign> {
    const campaign = await this.campaigns.find(id)
    if (!campaign) throw ApiError.notFound('Campaign')
    return campaign
  }

  async create(fields: CampaignFields): Promise<Campaign> {
    const now = dateTimeOf(this.clock.now())
    return this.campaigns.add({
      name: fields.name!,
      status: 'draft',
      body: fields.body ?? null,
      templateId: fields.templateId ? Number(fields.templateId) : null,
      audience: audienceOf(fields.audience),
      deviceId: fields.deviceId ?? null,
      simSlot: fields.simSlot ?? null,
      startAt: fields.startAt ? this.#startAt(fields.startAt) : null,
      throttlePerMinute: fields.throttlePerMinute ?? null,
      run: 0,
      resolved: false,
      total: 0,
      excludedOptedOut: 0,
      excludedDuplicates: 0,
      excludedInvalid: 0,
      throttleCredit: 0,
      lastPassAt: null,
      windowHeld: false,
      resumesAt: null,
      settled: true,
      createdAt: now,
      updatedAt: now,
      launchedAt: null,
      completedAt: null,
      cancelledAt: null,
    })
  }

  /**
   * A draft, or a scheduled campaign before it starts, may change. A scheduled one's audience is
   * resolved again (its texts rendered again) by the engine's next pass.
   */
  async update(id: number, change: CampaignFields): Promise<Campaign> {
    const campaign = await this.find(id)
    if (campaign.status !== 'draft' && campaign.status !== 'scheduled') {
      throw new ApiError('CAMPAIGN_NOT_EDITABLE', 'Only a draft or scheduled campaign can be edited')
    }
    if (campaign.status === 'scheduled') campaign.merge({ resolved: false, total: 0, excludedOptedOut: 0, excludedDuplicates: 0, excludedInvalid: 0 })
    if (change.name !== undefined) campaign.name = change.name
    if (change.body !== undefined) campaign.body = change.body
    if (change.templateId !== undefined) campaign.templateId = change.templateId === null ? null : Number(change.templateId)
    if (change.audience !== undefined) campaign.audience = audienceOf(change.audience, campaign.audience)
    if (change.deviceId !== undefined) campaign.deviceId = change.deviceId
    if (change.simSlot !== undefined) campaign.simSlot = change.simSlot
    if (change.startAt !== undefined) campaign.startAt = change.startAt === null ? null : this.#startAt(change.startAt)
    if (change.throttlePerMinute !== undefined) campaign.throttlePerMinute = change.throttlePerMinute
    campaign.updatedAt = dateTimeOf(this.clock.now())
    await this.campaigns.save(campaign)
    return campaign
  }

  async delete(id: number): Promise<void> {
    const campaign = await this.find(id)
    if (campaign.status === 'running' || campaign.status === 'paused') {
      throw new ApiError('CAMPAIGN_WRONG_STATE', 'A running or paused campaign cannot be deleted; cancel it first')
    }
    await this.campaigns.remove(campaign)
  }

  /** Recipients in id order (the order they are sent in), keyset pages. */
  async recipients(id: number, filters: PageRequest & { status?: string; run?: number }): Promise<PageOf<typeof recipientSchema>> {
    await this.find(id)
    const limit = filters.limit ?? DEFAULT_PAGE_SIZE
    const afterId = filters.cursor ? decodeCursor(filters.cursor).id : undefined
    const rows = await this.campaigns.recipients(id, { afterId, limit: limit + 1, status: filters.status, run: filters.run })
    const data = await this.#recipientResources(rows.slice(0, limit))
    const last = rows[limit - 1]
    return { data, nextCursor: rows.length > limit ? encodeCursor({ sortValue: last.id, id: last.id }) : null }
  }

  /** Every recipient, page by page, for an export. */
  async *allRecipients(id: number): AsyncGenerator<RecipientResource[]> {
    await this.find(id)
    let after = 0
    for (;;) {
      const rows = await this.campaigns.recipients(id, { afterId: after, limit: 2000 })
      if (!rows.length) return
      after = rows[rows.length - 1].id
      yield this.#recipientResources(rows)
    }
  }

  async #recipientResources(rows: any[]): Promise<RecipientResource[]> {
    const messages = await this.messages.statusesOf(rows.flatMap((row) => (row.message_id ? [row.message_id] : [])))
    return rows.map((row) => ({
      id: String(row.id),
      contactId: row.contact_id === null ? null : String(row.contact_id),
      phone: row.phone,
      status: row.status,
      errorCode: row.error_code ?? (row.message_id ? messages.get(row.message_id)?.errorCode ?? null : null),
      messageId: row.message_id === null ? null : String(row.message_id),
      run: row.run,
      updatedAt: row.updated_at,
    }))
  }

  #startAt(value: string): DateTime {
    const at = DateTime.fromISO(value, { zone: 'utc' })
    if (!at.isValid) throw ApiError.validation('startAt', 'date', 'The startAt field must be an ISO 8601 date')
    return at
  }
}
