import vine from '@vinejs/vine'
import { pageQueryFields } from '#core/pagination/keyset_page'
import { documentedAs } from '#core/contract/schemas'

/** A template's text at most: ten concatenated GSM-7 parts, as a person would still send. */
export const MAX_TEMPLATE_BODY = 1600
/** Recipients one preview renders at most (the editor shows a few). */
export const MAX_PREVIEW_RECIPIENTS = 50

const name = vine.string().trim().minLength(1).maxLength(100)
// Not trimmed: leading spaces or a trailing line break are part of what is sent.
const body = vine
  .string()
  .maxLength(MAX_TEMPLATE_BODY)
  .regex(/\S/)
  .use(
    documentedAs({
      description:
        `1 to ${MAX_TEMPLATE_BODY} characters, not blank. Variables: {{name}} (first and last name), {{firstName}}, {{lastName}}, ` +
        '{{phone}}, {{company}}, {{email}}, any custom field {{key}}; a fallback stands in for an empty value: {{name|there}}',
    })
  )
const id = vine.string().regex(/^\d{1,15}$/)

export const createTemplateValidator = vine.compile(vine.object({ name, body }))
export const updateTemplateValidator = vine.compile(vine.object({ name: name.optional(), body: body.optional() }))
export const listTemplatesValidator = vine.compile(
  vine.object({
    ...pageQueryFields,
    q: vine.string().trim().minLength(1).maxLength(100).use(documentedAs({ description: 'Search: names containing the text' })).optional(),
  })
)

export const previewTemplateValidator = vine.compile(
  vine.object({
    templateId: id.clone().optional().use(documentedAs({ description: 'The template to render (or give body)' })),
    body: body.clone().optional().use(documentedAs({ description: 'A text to render instead of a template (an editor not saved yet)' })),
    contactIds: vine.array(id.clone()).maxLength(MAX_PREVIEW_RECIPIENTS).optional(),
    numbers: vine
      .array(vine.string().trim().maxLength(32))
      .maxLength(MAX_PREVIEW_RECIPIENTS)
      .optional()
      .use(documentedAs({ description: 'Numbers (E.164 or local form); a number of a contact renders with that contact' })),
  })
)
