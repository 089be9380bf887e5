import type { HttpContext } from '@adonisjs/core/http'
import vine from '@vinejs/vine'
import { DataFolder } from '#core/data_folder/data_folder'
import { pageQueryFields } from '#core/pagination/keyset_page'
import { TechnicalLog } from '#core/logging/technical_log'

export const technicalLogQueryValidator = vine.compile(vine.object({ ...pageQueryFields }))

export default class TechnicalLogController {
  async index({ request }: HttpContext) {
    const query = await request.validateUsing(technicalLogQueryValidator, { data: request.qs() })
    return new TechnicalLog(DataFolder.current().logFile).page(query)
  }
}
