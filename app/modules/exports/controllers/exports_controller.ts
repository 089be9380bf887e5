import { createReadStream } from 'node:fs'
import { stat } from 'node:fs/promises'
import { inject } from '@adonisjs/core'
import type { HttpContext } from '@adonisjs/core/http'
import { Clock } from '#core/time/clock'
import { fileStamp } from '#core/time/file_stamp'
import { exportColumns, exportRows, type ExportDataset, type ExportRow } from '#modules/exports/services/export_datasets'
import { csvStream, jsonStream } from '#modules/exports/services/export_formats'
import { freshDatabaseCopy } from '#modules/exports/services/database_export'
import { routeInputs } from '#core/contract/route_contract'
import type { ExportRoutes } from '#modules/exports/routes'
import { MessageExports } from '#modules/messages/public'

const input = routeInputs<ExportRoutes>()

/** The routes of the whole datasets: two of them (the contacts') share one handler. */
type DataExportId = Exclude<ExportRoutes[number]['operationId'], 'exportDatabase' | 'exportMessages'>

/** Streamed downloads: rows leave as they are read, so memory stays flat whatever the size. */
@inject()
export default class ExportsController {
  constructor(
    private clock: Clock,
    private messageExports: MessageExports
  ) {}

  async messages(ctx: HttpContext) {
    const { format, ...filters } = input(ctx, 'exportMessages').query
    return this.#export(ctx, 'messages', await this.messageExports.rows(filters), format)
  }

  contacts(ctx: HttpContext) {
    return this.#exportAll(ctx, 'contacts')
  }

  conversations(ctx: HttpContext) {
    return this.#exportAll(ctx, 'conversations')
  }

  async database({ response }: HttpContext) {
    const copy = await freshDatabaseCopy()
    const { size } = await stat(copy.file)
    const stream = createReadStream(copy.file)
    // Removed whether the download ends, fails or the client goes away.
    stream.once('close', () => void copy.remove())
    response.header('content-type', 'application/vnd.sqlite3')
    response.header('content-length', String(size))
    response.header('content-disposition', `attachment; filename="gateway-${fileStamp(this.clock.now())}.db"`)
    response.stream(stream)
  }

  #exportAll(ctx: HttpContext, dataset: Exclude<ExportDataset, 'messages'>) {
    return this.#export(ctx, dataset, exportRows(dataset), input(ctx, ctx.route?.name as DataExportId).query.format)
  }

  #export({ response }: HttpContext, dataset: ExportDataset, rows: AsyncGenerator<ExportRow>, format: 'csv' | 'json' = 'csv') {
    response.header('content-type', format === 'csv' ? 'text/csv; charset=utf-8' : 'application/json; charset=utf-8')
    response.header('content-disposition', `attachment; filename="${dataset}-${fileStamp(this.clock.now())}.${format}"`)
    response.stream(format === 'csv' ? csvStream(exportColumns[dataset], rows) : jsonStream(rows))
  }
}

