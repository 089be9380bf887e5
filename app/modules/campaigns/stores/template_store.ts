import { toIso } from '#core/database/utc_date_time'
import { keysetPage, type Page, type PageRequest } from '#core/pagination/keyset_page'
import { likeContaining } from '#core/database/like_pattern'
import MessageTemplate from '#modules/campaigns/models/message_template'

/** The `message_templates` table, through the MessageTemplate model (docs/modules.md, Data access). */
export class TemplateStore {
  /** Newest first; `q` keeps the names that contain it. */
  page(filters: PageRequest & { q?: string }): Promise<Page<MessageTemplate>> {
    const query = MessageTemplate.query()
    if (filters.q) query.whereRaw(`name LIKE ? ESCAPE '\\'`, [likeContaining(filters.q)])
    return keysetPage(query, filters, 'created_at', (row) => toIso(row.createdAt))
  }

  find = (id: number) => MessageTemplate.find(id)
  add = (fields: Partial<MessageTemplate>) => MessageTemplate.create(fields)
  save = (template: MessageTemplate) => template.save()
  remove = (template: MessageTemplate) => template.delete()

  /** Whether a template has this name, whatever its case. */
  async nameTaken(name: string): Promise<boolean> {
    return Boolean(await MessageTemplate.query().whereRaw('name = ? COLLATE NOCASE', [name]).first())
  }
}
