import type { HttpContext } from '@adonisjs/core/http'
import { DataFolder } from '#core/data_folder/data_folder'
import { listTechnicalLogValidator } from '#core/logging/technical_log_validator'
import { TechnicalLog } from '#core/logging/technical_log'

export default class TechnicalLogController {
  async index({ request }: HttpContext) {
    const query = await request.validateUsing(listTechnicalLogValidator, { data: request.qs() })
    return new TechnicalLog(DataFolder.current().logFile).page(query)
  }
}
