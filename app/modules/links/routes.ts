import { access } from '#core/http/access'
import { defineRoutes } from '#core/contract/route_contract'
import type { RouteRegistry } from '#core/contract/route_registry'
import { pageQueryValidator } from '#core/pagination/keyset_page'
import { linkPermissions } from '#modules/links/permissions'
import { linkPageSchema, linkSchema } from '#modules/links/schemas'

const LinksController = () => import('#modules/links/controllers/links_controller')

/** Short links: their list with clicks, and following one. */
export function linkRoutes(registry: RouteRegistry) {
  registry.describeTag('Links', 'Short click-counting links made by sends with shortenLinks')
  const link = registry.addSchema('Link', linkSchema)

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
        schema: linkPageSchema(link),
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

/** The module's contracts as typed, for its handlers' input (`routeInputs<LinkRoutes>()`). */
export type LinkRoutes = ReturnType<typeof linkRoutes>
