import { inject } from '@adonisjs/core'
import type { HttpContext } from '@adonisjs/core/http'
import { idParam } from '#core/http/route_params'
import { ApiKeyService } from '#modules/auth/services/api_key_service'
import { routeInputs } from '#core/contract/route_contract'
import type { AuthRoutes } from '#modules/auth/routes'
import type { KeyWithSecret } from '#modules/auth/schemas'

const input = routeInputs<AuthRoutes>()

@inject()
export default class ApiKeysController {
  constructor(private keys: ApiKeyService) {}

  async index(ctx: HttpContext) {
    return this.keys.list(input(ctx, 'listApiKeys').query)
  }

  /** The secret is in this answer and the rotation answer only. */
  async store(ctx: HttpContext): Promise<KeyWithSecret> {
    const { apiKey, secret } = await this.keys.create(input(ctx, 'createApiKey').body, ctx.caller!)
    ctx.response.status(201)
    return { apiKey: apiKey.toResource(), secret }
  }

  async update(ctx: HttpContext) {
    return (await this.keys.update(idParam(ctx.params.id, 'API key'), input(ctx, 'updateApiKey').body, ctx.caller!)).toResource()
  }

  async rotate({ params, caller }: HttpContext): Promise<KeyWithSecret> {
    const { apiKey, secret } = await this.keys.rotate(idParam(params.id, 'API key'), caller!)
    return { apiKey: apiKey.toResource(), secret }
  }

  async destroy({ params, response, caller }: HttpContext) {
    await this.keys.revoke(idParam(params.id, 'API key'), caller!)
    return response.noContent()
  }
}
