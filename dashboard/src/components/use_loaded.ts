import { ref, shallowRef, type Ref } from 'vue'
import { asProblem, type ApiProblem } from '../api/client'

/**
 * Data a page reads from the API: the last answer, whether the first read is under way, and
 * what went wrong. `reload()` reads again (after a live event); the last answer stays on screen
 * meanwhile.
 */
export function useLoaded<Data>(read: () => Promise<Data>) {
  const data = shallowRef<Data>() as Ref<Data | undefined>
  const loading = ref(true)
  const problem = shallowRef<ApiProblem | null>(null)

  async function reload() {
    try {
      data.value = await read()
      problem.value = null
    } catch (error) {
      problem.value = asProblem(error)
    } finally {
      loading.value = false
    }
  }

  void reload()
  return { data, loading, problem, reload }
}
