import db from '@adonisjs/lucid/services/db'
import { ApiError } from '#core/http/api_error'

/** GET /health: 200 once the gateway serves and its database answers. No authentication. */
export default class HealthController {
  async show() {
    try {
      await db.rawQuery('select 1')
    } catch {
      throw new ApiError('INTERNAL_ERROR', 'The database does not answer')
    }
    return { status: 'ok' }
  }
}
