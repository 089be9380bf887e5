import { access } from '#core/http/access'
import { defineRoutes } from '#core/contract/route_contract'
import { isoDateTimeSchema } from '#core/contract/schemas'
import type { RouteRegistry } from '#core/contract/route_registry'
import { pageQueryValidator } from '#core/pagination/keyset_page'
import { linkPermissions } from '#modules/links/permissions'

const LinksController = () => import('#modules/links/controllers/links_controller')

/** Short links: their list with clicks, and following one. */
export function linkRoutes(registry: RouteRegistry) {
  registry.describeTag('Links', 'Short click-counting links made by sends with shortenLinks')
  const link = registry.addSchema('Link', {
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
  })

  return defineRoutes([
    {
      method: 'GET',
      path: '/api/v1/links',
      operationId: 'listLinks',
      summary: 'Short links with their clicks',
      tag: 'Links',
      access: linkPermissions['links.read'],
      query: pageQueryValidator,
      answer: {
        status: 200,
        description: 'A page of links, newest first, with the length of every short link',
        schema: {
          type: 'object',
          required: ['data', 'nextCursor', 'shortUrlLength'],
          properties: {
            data: { type: 'array', items: link },
            nextCursor: { type: ['string', 'null'] },
            shortUrlLength: { type: 'integer', description: 'Length of a short link, to compute a text length in advance' },
          },
        },
      },
      handler: [LinksController, 'index'],
    },
    {
      method: 'GET',
      path: '/l/:code',
      operationId: 'followLink',
      summary: 'Follow a short link (counts the click, emits link.clicked)',
      tag: 'Links',
      access: access.public(),
      params: { code: 'Short link code' },
      answer: {
        status: 302,
        description: 'Redirect to the target (Location header)',
        contentType: 'text/plain',
        schema: { type: 'string', description: 'Redirecting to {target}: for a client that does not follow Location' },
      },
      errors: ['NOT_FOUND'],
      handler: [LinksController, 'follow'],
    },
  ])
}
