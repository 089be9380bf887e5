import type { JsonOf } from '#core/contract/typed_schema'
import { isoDateTimeSchema } from '#core/contract/schemas'

/** The Link resource; `linkResource` (models/link.ts) answers it. */
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
