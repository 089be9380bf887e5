import type { HttpContext } from '@adonisjs/core/http'
import { inject } from '@adonisjs/core'
import { SettingsStore } from '#core/settings/settings_store'

@inject()
export default class SettingsController {
  constructor(private settings: SettingsStore) {}

  async show() {
    return this.settings.all()
  }

  /** Validation is per section (the backup block answers 422), so the store does it. */
  async update({ request }: HttpContext) {
    return this.settings.update(request.body())
  }
}
