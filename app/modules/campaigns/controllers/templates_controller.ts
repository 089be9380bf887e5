import { inject } from '@adonisjs/core'
import type { HttpContext } from '@adonisjs/core/http'
import { idParam } from '#core/http/route_params'
import { TemplateLibrary, templateResource } from '#modules/campaigns/services/template_library'
import { TemplatePreview } from '#modules/campaigns/services/template_preview'
import {
  createTemplateValidator,
  listTemplatesValidator,
  previewTemplateValidator,
  updateTemplateValidator,
} from '#modules/campaigns/validators/template_validators'

@inject()
export default class TemplatesController {
  constructor(
    private templates: TemplateLibrary,
    private previews: TemplatePreview
  ) {}

  async index({ request }: HttpContext) {
    return this.templates.list(await request.validateUsing(listTemplatesValidator, { data: request.qs() }))
  }

  async show({ params }: HttpContext) {
    return templateResource(await this.templates.find(idParam(params.id, 'Template')))
  }

  async store({ request, response }: HttpContext) {
    const template = await this.templates.create(await request.validateUsing(createTemplateValidator, { data: request.body() }))
    response.status(201)
    return templateResource(template)
  }

  async update({ request, params }: HttpContext) {
    const change = await request.validateUsing(updateTemplateValidator, { data: request.body() })
    return templateResource(await this.templates.update(idParam(params.id, 'Template'), change))
  }

  async destroy({ params, response }: HttpContext) {
    await this.templates.delete(idParam(params.id, 'Template'))
    return response.noContent()
  }

  async preview({ request }: HttpContext) {
    return this.previews.preview(await request.validateUsing(previewTemplateValidator, { data: request.body() }))
  }
}
