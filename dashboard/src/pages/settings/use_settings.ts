import { api, answer } from '../../api/client'
import type { components } from '../../api/schema'
import { useLoaded } from '../../components/use_loaded'

export type Settings = components['schemas']['Settings']
export type SectionName = keyof Settings & string

/** What a secret field answers when it is set (app/core/settings/settings_catalogue.ts). */
export const SECRET_MASK = '********'

/** The settings in force, as GET /settings answers them (secret fields masked). */
export function useSettings() {
  return useLoaded(() => answer(api.GET('/api/v1/settings')))
}

/** PATCH /settings with one section's changed fields; answers every section in force. */
export function saveSection<Name extends SectionName>(section: Name, change: Partial<Settings[Name]>): Promise<Settings> {
  return answer(api.PATCH('/api/v1/settings', { body: { [section]: change } }))
}

/** The fields of a draft that differ from the values in force: only those are sent. */
export function changedFields<Fields extends object>(draft: Fields, saved: Fields): Partial<Fields> {
  const changed: Partial<Fields> = {}
  for (const name of Object.keys(draft) as Array<keyof Fields>) {
    if (JSON.stringify(draft[name]) !== JSON.stringify(saved[name])) changed[name] = draft[name]
  }
  return changed
}
