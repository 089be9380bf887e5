import { defineRoutes } from '#core/contract/route_contract'
import { isoDateTimeSchema, pageOf } from '#core/contract/schemas'
import type { RouteRegistry } from '#core/contract/route_registry'
import { campaignPermissions } from '#modules/campaigns/permissions'
import {
  createTemplateValidator,
  listTemplatesValidator,
  previewTemplateValidator,
  updateTemplateValidator,
} from '#modules/campaigns/validators/template_validators'

const TemplatesController = () => import('#modules/campaigns/controllers/templates_controller')

const count = { type: 'integer', minimum: 0 }
const encoding = { enum: ['gsm7', 'ucs2'] }

/** Message templates: CRUD and preview (docs/campaigns.md, Templates). */
export function templateRoutes(registry: RouteRegistry) {
  registry.describeTag('Templates', 'Texts with {{variables}} filled in per recipient')
  const template = registry.addSchema('Template', {
    type: 'object',
    required: ['id', 'name', 'body', 'variables', 'encoding', 'segments', 'characters', 'createdAt', 'updatedAt'],
    additionalProperties: false,
    properties: {
      id: { type: 'string' },
      name: { type: 'string', description: 'Unique (case-insensitive)' },
      body: { type: 'string' },
      variables: {
        type: 'array',
        description: 'The variables the text uses, each once, in order of first use',
        items: {
          type: 'object',
          required: ['key', 'fallback'],
          additionalProperties: false,
          properties: { key: { type: 'string' }, fallback: { type: ['string', 'null'], description: 'Shown when the value is empty' } },
        },
      },
      encoding: { ...encoding, description: 'Of the text with each variable as its fallback (or nothing); a recipient’s values may change it (see the preview)' },
      segments: { ...count, description: 'SMS parts of that text' },
      characters: { ...count, description: 'Characters of that text' },
      createdAt: isoDateTimeSchema,
      updatedAt: isoDateTimeSchema,
    },
  })
  const preview = registry.addSchema('TemplatePreview', {
    type: 'object',
    required: ['recipients', 'totals', 'notFound'],
    additionalProperties: false,
    properties: {
      recipients: {
        type: 'array',
        description: 'The contacts given, then the numbers given; with none, one render for a contact with no data (every fallback shows)',
        items: {
          type: 'object',
          required: ['contactId', 'phone', 'body', 'encoding', 'segments', 'characters', 'missing'],
          additionalProperties: false,
          properties: {
            contactId: { type: ['string', 'null'] },
            phone: { type: ['string', 'null'], description: 'E.164; null for the no-data render' },
            body: { type: 'string', description: 'The text this recipient would receive' },
            encoding,
            segments: count,
            characters: count,
            missing: { type: 'array', items: { type: 'string' }, description: 'Variables with no value for this recipient and no fallback (they render as nothing)' },
          },
        },
      },
      totals: {
        type: 'object',
        required: ['recipients', 'segments', 'encodings'],
        additionalProperties: false,
        properties: {
          recipients: count,
          segments: count,
          encodings: { type: 'object', required: ['gsm7', 'ucs2'], additionalProperties: false, properties: { gsm7: count, ucs2: count } },
        },
      },
      notFound: { type: 'array', items: { type: 'string' }, description: 'Contact ids given that are no contact' },
    },
  })
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
