import type { RouteAccess } from '#core/http/access'
import { errorCatalogue, type ErrorKindDefinition } from '#core/http/api_error'
import { permissionCatalogue } from '#core/http/permissions'
import { publicEventCatalogue, type PublicEventDefinition } from '#core/events/public_events'
import { activityCatalogue, type ActivityDeclaration } from '#core/activity/activity_vocabulary'
import {
  settingsCatalogue,
  type SettingsFields,
  type SettingsSectionName,
  type SettingsSections,
} from '#core/settings/settings_catalogue'

/** Some fields of one settings section, as a module contributes them (checked against its type). */
export interface SectionFields {
  section: SettingsSectionName
  fields: SettingsFields<Record<string, unknown>>
}

export function sectionFields<Name extends SettingsSectionName>(
  section: Name,
  fields: SettingsFields<Partial<SettingsSections[Name]>>
): SectionFields {
  return { section, fields: fields as unknown as SettingsFields<Record<string, unknown>> }
}

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
  settings?: SectionFields[]
  activity?: ActivityDeclaration
}

export function registerVocabulary(vocabulary: ModuleVocabulary): void {
  if (vocabulary.errors) errorCatalogue.add(vocabulary.errors)
  if (vocabulary.permissions) permissionCatalogue.add(vocabulary.permissions)
  if (vocabulary.events) publicEventCatalogue.add(vocabulary.events)
  if (vocabulary.activity) activityCatalogue.add(vocabulary.activity)
  for (const { section, fields } of vocabulary.settings ?? []) settingsCatalogue.addFields(section, fields)
}
