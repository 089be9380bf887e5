import { inject } from '@adonisjs/core'
import emitter from '@adonisjs/core/services/emitter'
import { Clock } from '#core/time/clock'
import { ApiError } from '#core/http/api_error'
import type { PageRequest } from '#core/pagination/keyset_page'
import { toIso } from '#core/database/utc_date_time'
import type Link from '#modules/links/models/link'
import type { LinkPage, LinkResource } from '#modules/links/schemas'
import { shortUrlLength, shortUrlOf } from '#modules/links/services/link_shortener'
import { clickSlotOf } from '#modules/links/services/link_counters'
import { LinkStore } from '#modules/links/stores/link_store'
import { transaction } from '#core/database/transaction'

/** Short links: the list with their clicks, and following one. */
@inject()
export class LinkClicks {
  constructor(
    private clock: Clock,
    private links: LinkStore
  ) {}

  async list(page: PageRequest): Promise<LinkPage> {
    const result = await this.links.page(page)
    return { data: result.data.map(linkResource), nextCursor: result.nextCursor, shortUrlLength: shortUrlLength() }
  }

  /** Counts the click (in total and in its quarter hour, for statistics), emits link.clicked and answers the target. */
  async follow(code: string): Promise<string> {
    const link = /^[0-9A-Za-z]{1,16}$/.test(code) ? await this.links.byCode(code) : null
    if (!link) throw ApiError.notFound('Link')
    const at = this.clock.now()
    await transaction((trx) => this.links.countClick(trx, link.id, clickSlotOf(at)))
    await emitter.emit('link.clicked', { id: String(link.id), at })
    return link.url
  }
}

/** The Link resource of a row (schemas.ts), in the order its serialisation had. */
export function linkResource(link: Link): LinkResource {
  return { id: String(link.id), code: link.code, url: link.url, clicks: link.clicks, createdAt: toIso(link.createdAt), shortUrl: shortUrlOf(link.code) }
}
