import { inject } from '@adonisjs/core'
import type { Infer } from '@vinejs/vine/types'
import vine from '@vinejs/vine'
import { MessageQueries } from '#modules/messages/services/message_queries'
import { messageExportRows, type MessageExportRow } from '#modules/messages/stores/export_rows'
import { messageExportFilterFields } from '#modules/messages/validators/message_validators'

const exportFilters = vine.object(messageExportFilterFields)

/** The messages export's query as its validator answers it (the list's filters, `ids`). */
export type MessageExportFilters = Infer<typeof exportFilters>

/** The messages export of what a list shows: its filters, or the ids of a selection. */
@inject()
export class MessageExports {
  constructor(private queries: MessageQueries) {}

  /**
   * The rows, the filters resolved as the list's are (a number normalised, a search made a
   * condition) before the first row is read: a refused filter is answered before the download starts.
   */
  async rows(query: MessageExportFilters): Promise<AsyncGenerator<MessageExportRow>> {
    const { ids, ...filters } = query
    return messageExportRows(await this.queries.resolved(filters), ids?.split(',').map(Number))
  }
}
