import type { HttpContext } from '@adonisjs/core/http'
import { inject } from '@adonisjs/core'
import { SettingsStore } from '#core/settings/settings_store'
import { ActivityLog } from '#core/activity/activity_log'

@inject()
export default class SettingsController {
  constructor(
    private settings: SettingsStore,
    private activity: ActivityLog
  ) {}

  async show() {
    return this.settings.publicView()
  }

  /** Validation is per section (the backup block answers 422), so the store does it. */
  async update({ request, caller }: HttpContext) {
    const change = request.body() as Record<string, Record<string, unknown>>
    await this.settings.update(change)
    // The sections and fields named, never their values (a password, a prefix rule's phone).
    const named = Object.entries(change).map(([section, fields]) => `${section} (${Object.keys(fields ?? {}).join(', ')})`)
    if (named.length) {
      await this.activity.actingFor(caller!).info('settings', 'settings.changed', `Settings changed: ${named.join('; ')}`, { sections: Object.keys(change) })
    }
    return this.settings.publicView()
  }
}
