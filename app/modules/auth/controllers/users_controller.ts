import { inject } from '@adonisjs/core'
import type { HttpContext } from '@adonisjs/core/http'
import { idParam } from '#core/http/route_params'
import { UserService } from '#modules/auth/services/user_service'
import { createUserValidator, updateUserValidator } from '#modules/auth/validators/account_validators'
import { pageQueryValidator } from '#core/pagination/keyset_page'

@inject()
export default class UsersController {
  constructor(private users: UserService) {}

  async index({ request }: HttpContext) {
    return this.users.list(await request.validateUsing(pageQueryValidator, { data: request.qs() }))
  }

  async store({ request, response }: HttpContext) {
    const user = await this.users.create(await request.validateUsing(createUserValidator))
    response.status(201)
    return user
  }

  async update({ request, params, session }: HttpContext) {
    const id = idParam(params.id, 'Account')
    return this.users.update(id, await request.validateUsing(updateUserValidator), session?.sessionId)
  }

  async destroy({ params, response }: HttpContext) {
    await this.users.delete(idParam(params.id, 'Account'))
    return response.noContent()
  }
}
