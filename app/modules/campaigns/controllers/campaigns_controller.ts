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
import {
  createCampaignValidator,
  exportRecipientsValidator,
  listCampaignsValidator,
  listRecipientsValidator,
  updateCampaignValidator,
} from '#modules/campaigns/validators/campaign_validators'

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

  async index({ request }: HttpContext) {
    return this.book.list(await request.validateUsing(listCampaignsValidator, { data: request.qs() }))
  }

  async show({ params }: HttpContext) {
    return this.book.present(await this.book.find(idParam(params.id, 'Campaign')))
  }

  async store({ request, response }: HttpContext) {
    const campaign = await this.book.create(await request.validateUsing(createCampaignValidator, { data: request.body() }))
    response.status(201)
    return this.book.present(campaign)
  }

  async update({ request, params }: HttpContext) {
    const change = await request.validateUsing(updateCampaignValidator, { data: request.body() })
    const campaign = await this.book.update(idParam(params.id, 'Campaign'), change)
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

  async launch({ params }: HttpContext) {
    return this.book.present(await this.engine.launch(idParam(params.id, 'Campaign')))
  }

  async pause({ params }: HttpContext) {
    return this.book.present(await this.engine.pause(idParam(params.id, 'Campaign')))
  }

  async resume({ params }: HttpContext) {
    return this.book.present(await this.engine.resume(idParam(params.id, 'Campaign')))
  }

  async cancel({ params }: HttpContext) {
    return this.book.present(await this.engine.cancel(idParam(params.id, 'Campaign')))
  }

  async retryFailed({ params }: HttpContext) {
    return this.book.present(await this.engine.retryFailed(idParam(params.id, 'Campaign')))
  }

  async recipients({ request, params }: HttpContext) {
    return this.book.recipients(idParam(params.id, 'Campaign'), await request.validateUsing(listRecipientsValidator, { data: request.qs() }))
  }

  async exportRecipients({ request, params, response }: HttpContext) {
    const id = idParam(params.id, 'Campaign')
    await this.book.find(id)
    const { format = 'csv' } = await request.validateUsing(exportRecipientsValidator, { data: request.qs() })
    response.header('content-type', format === 'csv' ? 'text/csv; charset=utf-8' : 'application/json; charset=utf-8')
    response.header('content-disposition', `attachment; filename="campaign-${id}-recipients-${fileStamp(this.clock.now())}.${format}"`)
    response.stream(recipientExport(format, this.book.allRecipients(id)))
  }
}
