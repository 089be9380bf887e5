import type { HttpContext } from '@adonisjs/core/http'
import { DataFolder } from '#core/data_folder/data_folder'
import { TechnicalLog } from '#core/logging/technical_log'
import { routeInputs } from '#core/contract/route_contract'
import type { CoreRoutes } from '#core/routes'

const input = routeInputs<CoreRoutes>()

export default class TechnicalLogController {
  async index(ctx: HttpContext) {
    return new TechnicalLog(DataFolder.current().logFile).page(input(ctx, 'listTechnicalLog').query)
  }
}
