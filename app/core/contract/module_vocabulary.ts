import type { RouteAccess } from '#core/http/access'
import { errorCatalogue, type ErrorKindDefinition } from '#core/http/api_error'
import { permissionCatalogue } from '#core/http/permissions'
import { publicEventCatalogue, type PublicEventDefinition } from '#core/events/public_events'
import { activityCatalogue, type ActivityDeclaration } from '#core/activity/activity_vocabulary'
import { settingsCatalogue, type SettingsRegistration } from '#core/settings/settings_catalogue'

export { sectionFields } from '#core/settings/settings_catalogue'

/**
 * What a module brings to the gateway's shared vocabulary: its error kinds, its permissions, the
 * public events it emits, its settings and the Activity sources and kinds it writes (its
 * `activity.ts`, `defineActivity`). A module's provider calls this from `register()`,
 * so that every route contract, validator and the OpenAPI document built later see all of it.
 * Core lists none of it (docs/modules.md).
 */
export interface ModuleVocabulary {
  errors?: Record<string, ErrorKindDefinition>
  permissions?: Record<string, RouteAccess>
  events?: Record<string, PublicEventDefinition>
  /** A list declared in `RegisteredSettings` (settings_catalogue.ts), which types the sections. */
  settings?: readonly SettingsRegistration[]
  activity?: ActivityDeclaration
}

export function registerVocabulary(vocabulary: ModuleVocabulary): void {
  if (vocabulary.errors) errorCatalogue.add(vocabulary.errors)
  if (vocabulary.permissions) permissionCatalogue.add(vocabulary.permissions)
  if (vocabulary.events) publicEventCatalogue.add(vocabulary.events)
  if (vocabulary.activity) activityCatalogue.add(vocabulary.activity)
  if (vocabulary.settings) settingsCatalogue.add(vocabulary.settings)
}
