import { computed, ref, watch, type Ref } from 'vue'
import { useSubmit } from '../../components/use_submit'
import { changedFields, saveSection, type SectionName, type Settings } from './use_settings'

/**
 * One settings section as a form: a draft of the values in force, Save sending only the fields
 * that changed (`toChange` decides for fields that are not sent as they are, such as a secret),
 * and the gateway's errors found by the input's own path.
 */
export function useSectionForm<Name extends SectionName>(
  section: Name,
  inForce: () => Settings[Name],
  onSaved: (settings: Settings) => void,
  toChange: (draft: Settings[Name], saved: Settings[Name]) => Partial<Settings[Name]> = changedFields
) {
  const draft = ref(structuredClone(inForce())) as Ref<Settings[Name]>
  // Another save (or a reload) changed what is in force: the form starts again from it.
  watch(inForce, (values) => (draft.value = structuredClone(values)))

  const saved = ref(false)
  const unchanged = ref(false)
  const form = useSubmit(async () => {
    saved.value = false
    const change = toChange(draft.value, inForce())
    unchanged.value = Object.keys(change).length === 0
    if (unchanged.value) return
    onSaved(await saveSection(section, change))
    saved.value = true
  })

  /**
   * The message of the gateway about an input: `details[].field` is the path from the body's
   * root (`sending.maxAttempts`, `notifications.adminEmails.1`, `sending.prefixRules.0.prefix`);
   * an input owns its own path and every path beneath it, unless its parts show their own.
   */
  function errorOf(path: string, beneath = true): string | undefined {
    const fields = form.problem.value?.fields ?? {}
    const own = `${section}.${path}`
    const key = Object.keys(fields).find((field) => field === own || (beneath && field.startsWith(`${own}.`)))
    return key === undefined ? undefined : fields[key]
  }

  const notice = computed(() => (saved.value ? 'Saved.' : unchanged.value ? 'Nothing changed: nothing to save.' : null))

  return { draft, save: form.submit, busy: form.busy, message: form.message, errorOf, notice }
}
