import type { HttpContext } from '@adonisjs/core/http'
import { inject } from '@adonisjs/core'
import { LicenseService } from '#modules/license/services/license_service'
import { routeInputs } from '#core/contract/route_contract'
import type { LicenseRoutes } from '#modules/license/routes'
import type { LicenseStatus } from '#modules/license/schemas'

const input = routeInputs<LicenseRoutes>()

@inject()
export default class LicenseController {
  constructor(private license: LicenseService) {}

  async show(): Promise<LicenseStatus> {
    return this.license.status()
  }

  /**
   * Answers at once with the key stored; the check it triggers runs in the background. The key
   * is read from the body only: one sent in the query string would sit in URLs and logs.
   */
  async update(ctx: HttpContext): Promise<LicenseStatus> {
    const { key } = input(ctx, 'replaceLicenseKey').body
    await this.license.replaceKey(key, 'api', ctx.caller!)
    return this.license.status()
  }
}
