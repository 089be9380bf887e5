import type { HttpContext } from '@adonisjs/core/http'
import { inject } from '@adonisjs/core'
import { ActivityLog } from '#core/activity/activity_log'
import { listActivityValidator } from '#core/activity/activity_validators'
import { activityCatalogue } from '#core/activity/activity_vocabulary'

@inject()
export default class ActivityController {
  constructor(private activity: ActivityLog) {}

  async index({ request }: HttpContext) {
    const query = await request.validateUsing(listActivityValidator, { data: request.qs() })
    return this.activity.list(query)
  }

  async actors() {
    return { data: await this.activity.actors() }
  }

  /** The sources and kinds the modules declared (activity_vocabulary.ts), in the operator's words. */
  async vocabulary() {
    return { sources: activityCatalogue.sources(), kinds: activityCatalogue.kinds() }
  }
}
