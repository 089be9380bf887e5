import vine from '@vinejs/vine'
import type { FieldContext } from '@vinejs/vine/types'
import { publicEventCatalogue } from '#core/events/public_events'
import { pageQueryFields } from '#core/pagination/keyset_page'
import { documentedAs } from '#core/contract/schemas'

/** Refused in custom headers, in any letter case (docs/webhooks.md, Subscribing). */
export const RESERVED_HEADER_NAMES = ['x-signature', 'x-timestamp', 'x-delivery-id', 'x-webhook-event', 'content-type']
/** Headers that frame the HTTP message itself: the client sets them, a custom one would corrupt the call. */
const FRAMING_HEADER_NAMES = ['content-length', 'transfer-encoding', 'connection', 'upgrade', 'expect', 'host']

/** An HTTP header name (RFC 9110 token). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/
/** No control characters: CR or LF in a value would split the header. */
const HEADER_VALUE = /^[^\x00-\x08\x0a-\x1f\x7f]*$/

const headerNameAllowed = vine.createRule((value: unknown, _options: undefined, field: FieldContext) => {
  if (typeof value !== 'string') return
  const lower = value.toLowerCase()
  if (RESERVED_HEADER_NAMES.includes(lower)) {
    field.report(`The header name ${value} is reserved: the gateway sets it on every call`, 'reservedHeader', field)
  } else if (FRAMING_HEADER_NAMES.includes(lower)) {
    field.report(`The header name ${value} is managed by the HTTP client`, 'reservedHeader', field)
  }
})

const httpUrl = vine.createRule((value: unknown, _options: undefined, field: FieldContext) => {
  if (typeof value !== 'string') return
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return field.report('The url must be an http:// or https:// address', 'url', field)
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !url.hostname) {
    field.report('The url must be an http:// or https:// address', 'url', field)
  }
})

/** A name from the public event catalogue, read when validating: modules register theirs at start. */
const publicEventName = () =>
  vine
    .string()
    .in(() => publicEventCatalogue.names())
    .use(documentedAs(() => ({ enum: publicEventCatalogue.names() })))

const fields = {
  name: vine.string().trim().minLength(1).maxLength(80),
  url: vine.string().trim().maxLength(2000).use(httpUrl()).use(documentedAs({ format: 'uri', description: 'http:// or https:// address, up to 2,000 characters' })),
  method: vine
    .string()
    .trim()
    .toUpperCase()
    .in(['POST', 'PUT', 'PATCH'])
    .use(documentedAs({ enum: ['POST', 'PUT', 'PATCH'], description: 'POST (default), PUT or PATCH; GET is refused' })),
  events: vine
    .array(publicEventName())
    .minLength(1)
    .distinct(),
  headers: vine
    .array(
      vine.object({
        name: vine.string().trim().minLength(1).maxLength(100).regex(HEADER_NAME).use(headerNameAllowed()),
        value: vine.string().maxLength(500).regex(HEADER_VALUE),
      })
    )
    .maxLength(10),
  secret: vine
    .string()
    .maxLength(200)
    .use(documentedAs({ description: '16 to 200 characters; empty or absent: drawn by the gateway on creation, kept on change' })),
  active: vine.boolean({ strict: true }),
}

export const createWebhookValidator = vine.compile(
  vine.object({
    name: fields.name,
    url: fields.url,
    events: fields.events,
    method: fields.method.optional(),
    headers: fields.headers.optional(),
    secret: fields.secret.nullable().optional(),
    active: fields.active.optional(),
  })
)

export const updateWebhookValidator = vine.compile(
  vine.object({
    name: fields.name.optional(),
    url: fields.url.optional(),
    events: fields.events.optional(),
    method: fields.method.optional(),
    headers: fields.headers.optional(),
    secret: fields.secret.nullable().optional(),
    active: fields.active.optional(),
  })
)

export const listDeliveriesValidator = vine.compile(
  vine.object({
    ...pageQueryFields,
    webhookId: vine.string().regex(/^\d{1,16}$/).optional(),
    status: vine.enum(['pending', 'success', 'failed'] as const).optional(),
    event: publicEventName().optional(),
  })
)
