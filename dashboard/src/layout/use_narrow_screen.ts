import { onBeforeUnmount, ref } from 'vue'

/** True on a phone-sized screen, where the menu folds into a drawer. */
export function useNarrowScreen(maxWidth = 768) {
  const query = window.matchMedia(`(max-width: ${maxWidth}px)`)
  const narrow = ref(query.matches)
  const update = (event: MediaQueryListEvent) => (narrow.value = event.matches)
  query.addEventListener('change', update)
  onBeforeUnmount(() => query.removeEventListener('change', update))
  return narrow
}
