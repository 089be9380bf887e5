import { computed, ref, watch } from 'vue'
import { asProblem } from '../api/client'

/**
 * "Everything matching" of a selection bar (docs/dashboard.md, Selecting many): once every row
 * shown is ticked, how many rows the list's filters match (the action's dry run), or that they
 * match more than one action may take (`tooManyCode`); `everything` is the operator's choice,
 * dropped when the filters change or the ticks are cleared. A count that fails for another
 * reason is said where the action is (`failed`), not swallowed.
 */
export function useMatchingSelection(options: {
  allShown: () => boolean
  filters: () => unknown
  ticked: () => number
  countMatching: () => Promise<number>
  tooManyCode: string
  /** Rows ticked again: the last action's result is cleared. */
  retick: () => void
  failed: (message: string) => void
}) {
  const matching = ref<number | null>(null)
  const tooMany = ref(false)
  const everything = ref(false)

  watch(
    () => [options.allShown(), options.filters()] as const,
    async ([all]) => {
      everything.value = false
      matching.value = null
      tooMany.value = false
      if (!all) return
      try {
        matching.value = await options.countMatching()
      } catch (error) {
        const problem = asProblem(error)
        if (problem.code === options.tooManyCode) tooMany.value = true
        else options.failed(problem.message)
      }
    },
    { immediate: true }
  )
  watch(options.ticked, (count) => {
    if (count) options.retick()
    else everything.value = false
  })

  /** How many the next action takes: the ticked rows, or every match once chosen. */
  const count = computed(() => (everything.value ? (matching.value ?? 0) : options.ticked()))
  return { matching, tooMany, everything, count }
}
