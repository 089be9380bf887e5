import { inject } from '@adonisjs/core'
import type { HttpContext } from '@adonisjs/core/http'
import { idParam } from '#core/http/route_params'
import { TemplateLibrary, templateResource } from '#modules/campaigns/services/template_library'
import { TemplatePreview } from '#modules/campaigns/services/template_preview'
import { routeInputs } from '#core/contract/route_contract'
import type { TemplateRoutes } from '#modules/campaigns/template_routes'

const input = routeInputs<TemplateRoutes>()

@inject()
export default class TemplatesController {
  constructor(
    private templates: TemplateLibrary,
    private previews: TemplatePreview
  ) {}

  async index(ctx: HttpContext) {
    return this.templates.list(input(ctx, 'listTemplates').query)
  }

  async show({ params }: HttpContext) {
    return templateResource(await this.templates.find(idParam(params.id, 'Template')))
  }

  async store(ctx: HttpContext) {
    const template = await this.templates.create(input(ctx, 'createTemplate').body)
    ctx.response.status(201)
    return templateResource(template)
  }

  async update(ctx: HttpContext) {
    const change = input(ctx, 'updateTemplate').body
    return templateResource(await this.templates.update(idParam(ctx.params.id, 'Template'), change))
  }

  async destroy({ params, response }: HttpContext) {
    await this.templates.delete(idParam(params.id, 'Template'))
    return response.noContent()
  }

  async preview(ctx: HttpContext) {
    return this.previews.preview(input(ctx, 'previewTemplate').body)
  }
}
