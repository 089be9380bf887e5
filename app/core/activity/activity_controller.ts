import type { HttpContext } from '@adonisjs/core/http'
import { inject } from '@adonisjs/core'
import { ActivityLog } from '#core/activity/activity_log'
import { listActivityValidator } from '#core/activity/activity_validators'

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
}
