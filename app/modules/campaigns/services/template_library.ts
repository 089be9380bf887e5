import { inject } from '@adonisjs/core'
import { Clock } from '#core/time/clock'
import { ApiError } from '#core/http/api_error'
import { countSegments } from '#core/sms/segment_counter'
import { dateTimeOf, toIso } from '#core/database/utc_date_time'
import type { PageRequest } from '#core/pagination/keyset_page'
import type MessageTemplate from '#modules/campaigns/models/message_template'
import { templateVariables, withFallbacksOnly } from '#core/sms/template_text'
import { TemplateStore } from '#modules/campaigns/stores/template_store'
import type { PageOf } from '#core/contract/schemas'
import type { TemplateResource, templateSchema } from '#modules/campaigns/schemas'

export interface TemplateFields {
  name: string
  body: string
}

/**
 * Message templates: named texts with {{variables}}. A template answers with the variables it
 * uses and the encoding and segments of its text as written (a recipient's values change them:
 * see the preview).
 */
@inject()
export class TemplateLibrary {
  constructor(
    private clock: Clock,
    private templates: TemplateStore
  ) {}

  async list(filters: PageRequest & { q?: string }): Promise<PageOf<typeof templateSchema>> {
    const page = await this.templates.page(filters)
    return { data: page.data.map(templateResource), nextCursor: page.nextCursor }
  }

  async find(id: number): Promise<MessageTemplate> {
    const template = await this.templates.find(id)
    if (!template) throw ApiError.notFound('Template')
    return template
  }

  /** A template's text as it is now, or null when it is gone (a campaign snapshots it at launch). */
  async bodyOf(id: number): Promise<string | null> {
    return (await this.templates.find(id))?.body ?? null
  }

  async create(fields: TemplateFields): Promise<MessageTemplate> {
    await this.#assertNameFree(fields.name)
    const now = dateTimeOf(this.clock.now())
    return this.templates.add({ ...fields, createdAt: now, updatedAt: now })
  }

  async update(id: number, change: Partial<TemplateFields>): Promise<MessageTemplate> {
    const template = await this.find(id)
    if (change.name !== undefined && change.name !== template.name) await this.#assertNameFree(change.name)
    template.merge({ ...change, updatedAt: dateTimeOf(this.clock.now()) })
    await this.templates.save(template)
    return template
  }

  async delete(id: number): Promise<void> {
    await this.templates.remove(await this.find(id))
  }

  async #assertNameFree(name: string) {
    if (await this.templates.nameTaken(name)) {
      throw new ApiError('NAME_TAKEN', 'Another template has this name', [{ field: 'name', rule: 'unique', message: 'Another template has this name' }])
    }
  }
}

/**
 * A template as the API answers it: its variables, and the encoding and segments of its text as
 * someone with no data receives it (each variable its fallback): the braces are never sent.
 */
export function templateResource(template: MessageTemplate): TemplateResource {
  const sent = withFallbacksOnly(template.body)
  const { encoding, segments } = countSegments(sent)
  return {
    id: String(template.id),
    name: template.name,
    body: template.body,
    createdAt: toIso(template.createdAt),
    updatedAt: toIso(template.updatedAt),
    variables: templateVariables(template.body),
    encoding,
    segments,
    characters: [...sent].length,
  }
}
