import type { HttpContext } from '@adonisjs/core/http'
import { inject } from '@adonisjs/core'
import { LinkClicks } from '#modules/links/services/link_clicks'
import { routeInputs } from '#core/contract/route_contract'
import type { LinkRoutes } from '#modules/links/routes'

const input = routeInputs<LinkRoutes>()

@inject()
export default class LinksController {
  constructor(private links: LinkClicks) {}

  async index(ctx: HttpContext) {
    return this.links.list(input(ctx, 'listLinks').query)
  }

  /** GET /l/{code}: public; 302 to the target, counting the click. */
  async follow({ params, response }: HttpContext) {
    const target = await this.links.follow(String(params.code))
    return response.redirect(target)
  }
}
