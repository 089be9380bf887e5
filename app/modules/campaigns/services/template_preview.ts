import { inject } from '@adonisjs/core'
import { ApiError } from '#core/http/api_error'
import { PhoneNumbers } from '#core/phone_numbers/phone_numbers'
import { SettingsStore } from '#core/settings/settings_store'
import { countSegments } from '#core/sms/segment_counter'
import { ContactAudience, type AudienceMember } from '#modules/contacts/public'
import { TemplateLibrary } from '#modules/campaigns/services/template_library'
import type { TemplatePreviewAnswer } from '#modules/campaigns/schemas'
import { renderTemplate, templateVariables, type TemplateRecipient } from '#core/sms/template_text'

export interface PreviewRequest {
  templateId?: string
  body?: string
  contactIds?: string[]
  numbers?: string[]
}

/** One recipient's render (`missing`: variables with no value for it and no fallback, rendered as nothing). */
type RenderedFor = TemplatePreviewAnswer['recipients'][number]

/**
 * What recipients would receive: the template (or a text not saved yet) rendered per contact or
 * number, with each one's encoding and segments, and the totals a campaign would cost. With no
 * recipient, one render for a contact with no data at all (every fallback shows).
 */
@inject()
export class TemplatePreview {
  constructor(
    private templates: TemplateLibrary,
    private audience: ContactAudience,
    private phoneNumbers: PhoneNumbers,
    private settings: SettingsStore
  ) {}

  async preview(request: PreviewRequest): Promise<TemplatePreviewAnswer> {
    const text = await this.#text(request)
    const recipients: Array<{ contactId: string | null; recipient: TemplateRecipient | null }> = []

    const wanted = [...new Set(request.contactIds ?? [])]
    const found = new Map<string, AudienceMember>()
    for await (const page of this.audience.members({ groupIds: [], contactIds: wanted.map(Number) })) {
      for (const member of page) found.set(String(member.contactId), member)
    }
    for (const id of wanted) {
      const member = found.get(id)
      if (member) recipients.push({ contactId: id, recipient: member })
    }

    const numbers = await this.#numbers(request.numbers ?? [])
    const contacts = await this.audience.byPhone(numbers)
    for (const phone of numbers) {
      const member = contacts.get(phone)
      recipients.push({ contactId: member ? String(member.contactId) : null, recipient: member ?? { phone } })
    }
    if (!wanted.length && !numbers.length) recipients.push({ contactId: null, recipient: null })

    const rendered = recipients.map(({ contactId, recipient }) => this.#render(text, contactId, recipient))
    return {
      recipients: rendered,
      totals: {
        recipients: rendered.length,
        segments: rendered.reduce((total, entry) => total + entry.segments, 0),
        encodings: {
          gsm7: rendered.filter((entry) => entry.encoding === 'gsm7').length,
          ucs2: rendered.filter((entry) => entry.encoding === 'ucs2').length,
        },
      },
      notFound: wanted.filter((id) => !found.has(id)),
    }
  }

  #render(text: string, contactId: string | null, recipient: TemplateRecipient | null): RenderedFor {
    const someone = recipient ?? { phone: '' }
    const body = renderTemplate(text, someone)
    const { encoding, segments } = countSegments(body)
    const missing = templateVariables(text)
      .filter(({ key, fallback }) => fallback === null && renderTemplate(`{{${key}}}`, someone) === '')
      .map(({ key }) => key)
    return { contactId, phone: recipient?.phone ?? null, body, encoding, segments, characters: [...body].length, missing }
  }

  async #text(request: PreviewRequest): Promise<string> {
    if (request.templateId !== undefined && request.body !== undefined) {
      throw ApiError.validation('body', 'exclusive', 'Give either templateId or body, not both')
    }
    if (request.templateId !== undefined) return (await this.templates.find(Number(request.templateId))).body
    if (request.body !== undefined) return request.body
    throw ApiError.validation('templateId', 'required', 'Give templateId or body: the text to render')
  }

  async #numbers(numbers: string[]): Promise<string[]> {
    const { localPrefix } = await this.settings.get('reception')
    return numbers.map((number, position) => {
      try {
        return this.phoneNumbers.normalize(number, localPrefix, position)
      } catch {
        // Where it stands, never the number itself.
        throw new ApiError('INVALID_PHONE', `The number at position ${position} of numbers is not a valid phone number`, { field: 'numbers', position })
      }
    })
  }
}
