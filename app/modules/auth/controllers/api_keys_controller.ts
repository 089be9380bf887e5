import { inject } from '@adonisjs/core'
import type { HttpContext } from '@adonisjs/core/http'
import { idParam } from '#core/http/route_params'
import { ApiKeyService } from '#modules/auth/services/api_key_service'
import { createApiKeyValidator, updateApiKeyValidator } from '#modules/auth/validators/api_key_validators'
import { pageQueryValidator } from '#core/pagination/keyset_page'

@inject()
export default class ApiKeysController {
  constructor(private keys: ApiKeyService) {}

  async index({ request }: HttpContext) {
    return this.keys.list(await request.validateUsing(pageQueryValidator, { data: request.qs() }))
  }

  /** The secret is in this answer and the rotation answer only. */
  async store({ request, response }: HttpContext) {
    const { apiKey, secret } = await this.keys.create(await request.validateUsing(createApiKeyValidator))
    response.status(201)
    return { apiKey, secret }
  }

  async update({ request, params }: HttpContext) {
    return this.keys.update(idParam(params.id, 'API key'), await request.validateUsing(updateApiKeyValidator))
  }

  async rotate({ params }: HttpContext) {
    return this.keys.rotate(idParam(params.id, 'API key'))
  }

  async destroy({ params, response }: HttpContext) {
    await this.keys.revoke(idParam(params.id, 'API key'))
    return response.noContent()
  }
}
