import { inject } from '@adonisjs/core'
import type { HttpContext } from '@adonisjs/core/http'
import { MessageVolumeStatistics } from '#modules/statistics/services/message_volume_statistics'
import { messageVolumeValidator } from '#modules/statistics/validators/statistics_validators'

export default class StatisticsController {
  @inject()
  async messages({ request }: HttpContext, statistics: MessageVolumeStatistics) {
    return statistics.messages(await request.validateUsing(messageVolumeValidator, { data: request.qs() }))
  }
}
