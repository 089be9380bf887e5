import { inject } from '@adonisjs/core'
import emitter from '@adonisjs/core/services/emitter'
import { Clock } from '#core/time/clock'
import { ApiError } from '#core/http/api_error'
import { toIso } from '#core/database/utc_date_time'
import { keysetPage, type PageRequest } from '#core/pagination/keyset_page'
import Link, { linkResource } from '#modules/links/models/link'
import type { LinkPage } from '#modules/links/schemas'
import { shortUrlLength } from '#modules/links/services/link_shortener'
import { clickSlotOf, countClickSql } from '#modules/links/services/link_counters'
import { transaction } from '#core/database/transaction'

/** Short links: the list with their clicks, and following one. */
@inject()
export class LinkClicks {
  constructor(private clock: Clock) {}

  async list(page: PageRequest): Promise<LinkPage> {
    const result = await keysetPage(Link.query(), page, 'created_at', (row) => toIso(row.createdAt))
    return { data: result.data.map(linkResource), nextCursor: result.nextCursor, shortUrlLength: shortUrlLength() }
  }

  /** Counts the click (in total and in its quarter hour, for statistics), emits link.clicked and answers the target. */
  async follow(code: string): Promise<string> {
    const link = /^[0-9A-Za-z]{1,16}$/.test(code) ? await Link.findBy('code', code) : null
    if (!link) throw ApiError.notFound('Link')
    const at = this.clock.now()
    await transaction(async (trx) => {
      await Link.query({ client: trx }).where('id', link.id).increment('clicks', 1)
      await trx.rawQuery(countClickSql(), [clickSlotOf(at), link.id])
    })
    await emitter.emit('link.clicked', { id: String(link.id), at })
    return link.url
  }
}
