import type { JsonSchema } from '#core/contract/route_contract'
import type { JsonOf } from '#core/contract/typed_schema'
import { isoDateTimeSchema } from '#core/contract/schemas'

/** The Link resource; `linkResource` (services/link_clicks.ts) answers it. */
export const linkSchema = {
  type: 'object',
  required: ['id', 'code', 'url', 'shortUrl', 'clicks', 'createdAt'],
  properties: {
    id: { type: 'string' },
    code: { type: 'string' },
    url: { type: 'string', description: 'The target' },
    shortUrl: { type: 'string', description: '{GATEWAY_PUBLIC_URL}/l/{code}' },
    clicks: { type: 'integer' },
    createdAt: isoDateTimeSchema,
  },
} as const
export type LinkResource = JsonOf<typeof linkSchema>

/** The list of links: a page with the length of every short link; `link` is the Link schema or its reference. */
export function linkPageSchema<const L extends JsonSchema>(link: L) {
  return {
    type: 'object',
    required: ['data', 'nextCursor', 'shortUrlLength'],
    properties: {
      data: { type: 'array', items: link },
      nextCursor: { type: ['string', 'null'] },
      shortUrlLength: { type: 'integer', description: 'Length of a short link, to compute a text length in advance' },
    },
  } as const
}
export type LinkPage = JsonOf<ReturnType<typeof linkPageSchema<typeof linkSchema>>>
