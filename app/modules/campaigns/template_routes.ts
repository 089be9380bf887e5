import { defineRoutes } from '#core/contract/route_contract'
import { pageOf } from '#core/contract/schemas'
import type { RouteRegistry } from '#core/contract/route_registry'
import { campaignPermissions } from '#modules/campaigns/permissions'
import { templateSchemas } from '#modules/campaigns/schemas'
import {
  createTemplateValidator,
  listTemplatesValidator,
  previewTemplateValidator,
  updateTemplateValidator,
} from '#modules/campaigns/validators/template_validators'

const TemplatesController = () => import('#modules/campaigns/controllers/templates_controller')

/** Message templates: CRUD and preview (docs/campaigns.md, Templates). */
export function templateRoutes(registry: RouteRegistry) {
  registry.describeTag('Templates', 'Texts with {{variables}} filled in per recipient')
  const { template, preview } = templateSchemas(registry)
  const templateId = { id: 'Template identifier' }

  return defineRoutes([
    {
      method: 'GET',
      path: '/api/v1/templates',
      operationId: 'listTemplates',
      summary: 'Templates, newest first',
      tag: 'Templates',
      access: campaignPermissions['templates.read'],
      query: listTemplatesValidator,
      answer: { status: 200, description: 'A page of templates', schema: pageOf(template) },
      handler: [TemplatesController, 'index'],
    },
    {
      method: 'POST',
      path: '/api/v1/templates',
      operationId: 'createTemplate',
      summary: 'Create a template',
      tag: 'Templates',
      access: campaignPermissions['templates.change'],
      body: createTemplateValidator,
      answer: { status: 201, description: 'The template', schema: template },
      errors: ['NAME_TAKEN'],
      handler: [TemplatesController, 'store'],
    },
    {
      method: 'POST',
      path: '/api/v1/templates/preview',
      operationId: 'previewTemplate',
      summary: 'Render a template (or a text) for contacts and numbers, with encodings, segments and totals',
      description: 'Changes nothing. Opted-out contacts render too (a campaign would leave them out).',
      tag: 'Templates',
      access: campaignPermissions['templates.read'],
      body: previewTemplateValidator,
      answer: { status: 200, description: 'What each recipient would receive', schema: preview },
      errors: ['NOT_FOUND', 'INVALID_PHONE'],
      handler: [TemplatesController, 'preview'],
    },
    {
      method: 'GET',
      path: '/api/v1/templates/:id',
      operationId: 'getTemplate',
      summary: 'One template',
      tag: 'Templates',
      access: campaignPermissions['templates.read'],
      params: templateId,
      answer: { status: 200, description: 'The template', schema: template },
      errors: ['NOT_FOUND'],
      handler: [TemplatesController, 'show'],
    },
    {
      method: 'PATCH',
      path: '/api/v1/templates/:id',
      operationId: 'updateTemplate',
      summary: 'Change a template (a running campaign keeps the text it was launched with)',
      tag: 'Templates',
      access: campaignPermissions['templates.change'],
      params: templateId,
      body: updateTemplateValidator,
      answer: { status: 200, description: 'The template', schema: template },
      errors: ['NOT_FOUND', 'NAME_TAKEN'],
      handler: [TemplatesController, 'update'],
    },
    {
      method: 'DELETE',
      path: '/api/v1/templates/:id',
      operationId: 'deleteTemplate',
      summary: 'Delete a template (campaigns launched with it keep their text)',
      tag: 'Templates',
      access: campaignPermissions['templates.change'],
      params: templateId,
      answer: { status: 204, description: 'Deleted' },
      errors: ['NOT_FOUND'],
      handler: [TemplatesController, 'destroy'],
    },
  ])
}

/** The contracts as typed, for their handlers' input (`routeInputs<TemplateRoutes>()`). */
export type TemplateRoutes = ReturnType<typeof templateRoutes>
