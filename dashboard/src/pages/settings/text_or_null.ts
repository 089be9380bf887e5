import { computed, type Ref } from 'vue'

/** An input's text for a field where null means "not set": an empty input stands for null. */
export function textOrNull<Draft extends object>(draft: Ref<Draft>, field: keyof Draft) {
  return computed({
    get: () => (draft.value[field] as string | null) ?? '',
    set: (text: string) => {
      ;(draft.value[field] as string | null) = text.trim() === '' ? null : text
    },
  })
}

export const yesNo = (value: boolean) => (value ? 'Yes' : 'No')
export const orNotSet = (value: string | number | null) => (value === null || value === '' ? 'Not set' : String(value))
