import type { HttpContext } from '@adonisjs/core/http'
import { inject } from '@adonisjs/core'
import { LinkClicks } from '#modules/links/services/link_clicks'
import { pageQueryValidator } from '#core/pagination/keyset_page'

@inject()
export default class LinksController {
  constructor(private links: LinkClicks) {}

  async index({ request }: HttpContext) {
    return this.links.list(await request.validateUsing(pageQueryValidator, { data: request.qs() }))
  }

  /** GET /l/{code}: public; 302 to the target, counting the click. */
  async follow({ params, response }: HttpContext) {
    const target = await this.links.follow(String(params.code))
    return response.redirect(target)
  }
}
