import { inject } from '@adonisjs/core'
import type { HttpContext } from '@adonisjs/core/http'
import type { Caller } from '#core/http/access'
import { idParam } from '#core/http/route_params'
import { UserService } from '#modules/auth/services/user_service'
import { createUserValidator, updateUserValidator } from '#modules/auth/validators/account_validators'
import { pageQueryValidator } from '#core/pagination/keyset_page'

/** The signed-in superadmin (account changes are refused to every key), named in the Activity log. */
function actingAccount(caller: Caller | undefined): number | undefined {
  return caller?.type === 'session' ? Number(caller.id) : undefined
}

@inject()
export default class UsersController {
  constructor(private users: UserService) {}

  async index({ request }: HttpContext) {
    return this.users.list(await request.validateUsing(pageQueryValidator, { data: request.qs() }))
  }

  async assignable() {
    return { data: await this.users.assignable() }
  }

  async store({ request, response, caller }: HttpContext) {
    const user = await this.users.create(await request.validateUsing(createUserValidator), actingAccount(caller))
    response.status(201)
    return user
  }

  async update({ request, params, session, caller }: HttpContext) {
    const id = idParam(params.id, 'Account')
    return this.users.update(id, await request.validateUsing(updateUserValidator), session?.sessionId, actingAccount(caller))
  }

  async destroy({ params, response, caller }: HttpContext) {
    await this.users.delete(idParam(params.id, 'Account'), actingAccount(caller))
    return response.noContent()
  }
}
