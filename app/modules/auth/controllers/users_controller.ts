import { inject } from '@adonisjs/core'
import type { HttpContext } from '@adonisjs/core/http'
import { idParam } from '#core/http/route_params'
import { UserService } from '#modules/auth/services/user_service'
import { routeInputs } from '#core/contract/route_contract'
import type { AuthRoutes } from '#modules/auth/routes'
import type { AssignableAccounts } from '#modules/auth/schemas'

const input = routeInputs<AuthRoutes>()

/** Accounts, changed by a signed-in superadmin, who is named in the Activity log. */
@inject()
export default class UsersController {
  constructor(private users: UserService) {}

  async index(ctx: HttpContext) {
    return this.users.list(input(ctx, 'listUsers').query)
  }

  async assignable(): Promise<AssignableAccounts> {
    return { data: await this.users.assignable() }
  }

  async store(ctx: HttpContext) {
    const user = await this.users.create(input(ctx, 'createUser').body, ctx.caller!)
    ctx.response.status(201)
    return user.toResource()
  }

  async update(ctx: HttpContext) {
    const id = idParam(ctx.params.id, 'Account')
    return (await this.users.update(id, input(ctx, 'updateUser').body, ctx.session?.sessionId, ctx.caller!)).toResource()
  }

  async destroy({ params, response, caller }: HttpContext) {
    await this.users.delete(idParam(params.id, 'Account'), caller!)
    return response.noContent()
  }
}
