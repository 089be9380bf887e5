import type { HttpContext } from '@adonisjs/core/http'
import { inject } from '@adonisjs/core'
import { ActivityLog } from '#core/activity/activity_log'
import { activityCatalogue } from '#core/activity/activity_vocabulary'
import { routeInputs } from '#core/contract/route_contract'
import type { CoreRoutes } from '#core/routes'
import type { ActivityActors, ActivityVocabulary } from '#core/schemas'

const input = routeInputs<CoreRoutes>()

@inject()
export default class ActivityController {
  constructor(private activity: ActivityLog) {}

  async index(ctx: HttpContext) {
    return this.activity.list(input(ctx, 'listActivity').query)
  }

  async actors(): Promise<ActivityActors> {
    return { data: await this.activity.actors() }
  }

  /** The sources and kinds the modules declared (activity_vocabulary.ts), in the operator's words. */
  async vocabulary(): Promise<ActivityVocabulary> {
    return { sources: activityCatalogue.sources(), kinds: activityCatalogue.kinds() }
  }
}
