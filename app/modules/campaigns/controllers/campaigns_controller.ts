import { inject } from '@adonisjs/core'
import type { HttpContext } from '@adonisjs/core/http'
import { Clock } from '#core/time/clock'
import { idParam } from '#core/http/route_params'
import { fileStamp } from '#core/time/file_stamp'
import { PhoneNumbers } from '#core/phone_numbers/phone_numbers'
import { SettingsStore } from '#core/settings/settings_store'
import { CampaignBook } from '#modules/campaigns/services/campaign_book'
import { CampaignEngine } from '#modules/campaigns/services/campaign_engine'
import { reviewCampaign } from '#modules/campaigns/services/campaign_review'
import { TemplateLibrary } from '#modules/campaigns/services/template_library'
import { recipientExport } from '#modules/campaigns/services/recipient_export'
import { routeInputs } from '#core/contract/route_contract'
import type { CampaignRoutes } from '#modules/campaigns/campaign_routes'

const input = routeInputs<CampaignRoutes>()

@inject()
export default class CampaignsController {
  constructor(
    private book: CampaignBook,
    private engine: CampaignEngine,
    private clock: Clock,
    private phoneNumbers: PhoneNumbers,
    private settings: SettingsStore,
    private templates: TemplateLibrary
  ) {}

  async index(ctx: HttpContext) {
    return this.book.list(input(ctx, 'listCampaigns').query)
  }

  async show({ params }: HttpContext) {
    return this.book.present(await this.book.find(idParam(params.id, 'Campaign')))
  }

  async store(ctx: HttpContext) {
    const campaign = await this.book.create(input(ctx, 'createCampaign').body)
    ctx.response.status(201)
    return this.book.present(campaign)
  }

  async update(ctx: HttpContext) {
    const change = input(ctx, 'updateCampaign').body
    const campaign = await this.book.update(idParam(ctx.params.id, 'Campaign'), change)
    if (campaign.status === 'scheduled') this.engine.wake()
    return this.book.present(campaign)
  }

  async destroy({ params, response }: HttpContext) {
    await this.book.delete(idParam(params.id, 'Campaign'))
    return response.noContent()
  }

  async review({ params }: HttpContext) {
    const campaign = await this.book.find(idParam(params.id, 'Campaign'))
    const body = campaign.body || (campaign.templateId !== null ? await this.templates.bodyOf(campaign.templateId) : null)
    const { localPrefix } = await this.settings.get('reception')
    return reviewCampaign({ campaign, body, now: this.clock.now(), window: await this.book.windowSettings(), phoneNumbers: this.phoneNumbers, localPrefix })
  }

  async launch({ params, caller }: HttpContext) {
    return this.book.present(await this.engine.launch(idParam(params.id, 'Campaign'), caller!))
  }

  async pause({ params, caller }: HttpContext) {
    return this.book.present(await this.engine.pause(idParam(params.id, 'Campaign'), caller!))
  }

  async resume({ params, caller }: HttpContext) {
    return this.book.present(await this.engine.resume(idParam(params.id, 'Campaign'), caller!))
  }

  async cancel({ params, caller }: HttpContext) {
    return this.book.present(await this.engine.cancel(idParam(params.id, 'Campaign'), caller!))
  }

  async retryFailed({ params, caller }: HttpContext) {
    return this.book.present(await this.engine.retryFailed(idParam(params.id, 'Campaign'), caller!))
  }

  async recipients(ctx: HttpContext) {
    return this.book.recipients(idParam(ctx.params.id, 'Campaign'), input(ctx, 'listCampaignRecipients').query)
  }

  async exportRecipients(ctx: HttpContext) {
    const { params, response } = ctx
    const id = idParam(params.id, 'Campaign')
    await this.book.find(id)
    const { format = 'csv' } = input(ctx, 'exportCampaignRecipients').query
    response.header('content-type', format === 'csv' ? 'text/csv; charset=utf-8' : 'application/json; charset=utf-8')
    response.header('content-disposition', `attachment; filename="campaign-${id}-recipients-${fileStamp(this.clock.now())}.${format}"`)
    response.stream(recipientExport(format, this.book.allRecipients(id)))
  }
}
