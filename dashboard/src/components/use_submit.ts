import { computed, ref, shallowRef } from 'vue'
import { asProblem, type ApiProblem } from '../api/client'

/**
 * Runs a form's call and keeps what the gateway answered wrong: the message of each field it
 * names (shown beside that field) and one sentence for the rest.
 */
export function useSubmit<Result>(action: () => Promise<Result>) {
  const busy = ref(false)
  const problem = shallowRef<ApiProblem | null>(null)

  async function submit(): Promise<Result | undefined> {
    if (busy.value) return undefined
    busy.value = true
    problem.value = null
    try {
      return await action()
    } catch (error) {
      problem.value = asProblem(error)
      return undefined
    } finally {
      busy.value = false
    }
  }

  const fieldError = (field: string) => problem.value?.fields[field]
  const validationStatus = (field: string) => (fieldError(field) ? ('error' as const) : undefined)
  const message = computed(() => {
    if (!problem.value) return null
    return Object.keys(problem.value.fields).length > 0 ? 'Check the fields marked below.' : problem.value.message
  })

  return { busy, problem, submit, fieldError, validationStatus, message }
}
