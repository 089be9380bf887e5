import { computed, type Ref } from 'vue'
import { countSegments, isGsm7 } from '@sms/segment_counter'
import { withShortLinkStandIns } from '@sms/links_in_text'

export const encodingNames = { gsm7: 'GSM-7', ucs2: 'UCS-2' } as const

/**
 * The body counted as the gateway will count it (same module as the server): with short links
 * on, every address counts as a short link of `shortUrlLength` characters.
 */
export function useTextCount(body: Ref<string>, shortLinks: Ref<boolean>, shortUrlLength: Ref<number | null>) {
  const counted = computed(() =>
    shortLinks.value && shortUrlLength.value !== null ? withShortLinkStandIns(body.value, shortUrlLength.value) : body.value
  )
  const count = computed(() => countSegments(counted.value))
  const characters = computed(() => [...counted.value].length)
  /** The first character that makes the text UCS-2, so the operator can replace it. */
  const firstOutsideGsm = computed(() => [...counted.value].find((character) => !isGsm7(character)) ?? null)
  return { count, characters, firstOutsideGsm }
}
