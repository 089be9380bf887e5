import type { HttpContext } from '@adonisjs/core/http'
import { inject } from '@adonisjs/core'
import { LicenseService } from '#modules/auth/license/license_service'
import { replaceLicenseKeyValidator } from '#modules/auth/license/license_validators'

@inject()
export default class LicenseController {
  constructor(private license: LicenseService) {}

  async show() {
    return this.license.status()
  }

  /**
   * Answers at once with the key stored; the check it triggers runs in the background. The key
   * is read from the body only: one sent in the query string would sit in URLs and logs.
   */
  async update({ request }: HttpContext) {
    const { key } = await replaceLicenseKeyValidator.validate(request.body())
    await this.license.replaceKey(key, 'api')
    return this.license.status()
  }
}
