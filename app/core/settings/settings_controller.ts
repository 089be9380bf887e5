import type { HttpContext } from '@adonisjs/core/http'
import { inject } from '@adonisjs/core'
import { SettingsStore } from '#core/settings/settings_store'

@inject()
export default class SettingsController {
  constructor(private settings: SettingsStore) {}

  async show() {
    return this.settings.publicView()
  }

  /** Validation is per section (the backup block answers 422), so the store does it. */
  async update({ request }: HttpContext) {
    await this.settings.update(request.body())
    return this.settings.publicView()
  }
}
