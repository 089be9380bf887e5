import { createReadStream } from 'node:fs'
import { stat } from 'node:fs/promises'
import { inject } from '@adonisjs/core'
import type { HttpContext } from '@adonisjs/core/http'
import { Clock } from '#core/time/clock'
import { fileStamp } from '#core/time/file_stamp'
import { exportColumns, exportRows, type ExportDataset } from '#modules/exports/services/export_datasets'
import { csvStream, jsonStream } from '#modules/exports/services/export_formats'
import { freshDatabaseCopy } from '#modules/exports/services/database_export'
import { routeInputs } from '#core/contract/route_contract'
import type { ExportRoutes } from '#modules/exports/routes'

const input = routeInputs<ExportRoutes>()

/** The routes of the data exports: two of them (the contacts') share one handler. */
type DataExportId = Exclude<ExportRoutes[number]['operationId'], 'exportDatabase'>

/** Streamed downloads: rows leave as they are read, so memory stays flat whatever the size. */
@inject()
export default class ExportsController {
  constructor(private clock: Clock) {}

  messages(ctx: HttpContext) {
    return this.#export(ctx, 'messages')
  }

  contacts(ctx: HttpContext) {
    return this.#export(ctx, 'contacts')
  }

  conversations(ctx: HttpContext) {
    return this.#export(ctx, 'conversations')
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

  #export(ctx: HttpContext, dataset: ExportDataset) {
    const { response } = ctx
    const { format = 'csv' } = input(ctx, ctx.route?.name as DataExportId).query
    const rows = exportRows(dataset)
    response.header('content-type', format === 'csv' ? 'text/csv; charset=utf-8' : 'application/json; charset=utf-8')
    response.header('content-disposition', `attachment; filename="${dataset}-${fileStamp(this.clock.now())}.${format}"`)
    response.stream(format === 'csv' ? csvStream(exportColumns[dataset], rows) : jsonStream(rows))
  }
}

