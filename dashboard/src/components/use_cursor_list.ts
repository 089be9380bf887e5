import { ref, shallowRef, type Ref } from 'vue'
import { asProblem, type ApiProblem } from '../api/client'

/** One page of a list answer: `{data, nextCursor}`, nextCursor null on the last page. */
export interface CursorPage<Row> {
  data: Row[]
  nextCursor: string | null
}

/**
 * A list the gateway pages with cursors (every list endpoint): the rows read so far, whether
 * more exist, and what went wrong. `loadMore()` appends the next page; `reload()` reads the
 * first page again (after a filter change or a live event) and keeps the old rows on screen
 * until the answer arrives. An answer that arrives after a newer reload started is dropped, so
 * fast filter changes never show the rows of an older filter.
 */
export function useCursorList<Row>(readPage: (cursor: string | undefined) => Promise<CursorPage<Row>>) {
  const rows = shallowRef<Row[]>([]) as Ref<Row[]>
  const nextCursor = ref<string | null>(null)
  const loading = ref(true)
  const loadingMore = ref(false)
  const problem = shallowRef<ApiProblem | null>(null)
  let generation = 0

  async function reload() {
    const mine = ++generation
    loading.value = true
    try {
      const page = await readPage(undefined)
      if (mine !== generation) return
      rows.value = page.data
      nextCursor.value = page.nextCursor
      problem.value = null
    } catch (error) {
      if (mine === generation) problem.value = asProblem(error)
    } finally {
      if (mine === generation) loading.value = false
    }
  }

  async function loadMore() {
    if (!nextCursor.value || loadingMore.value) return
    const mine = generation
    loadingMore.value = true
    try {
      const page = await readPage(nextCursor.value)
      if (mine !== generation) return
      rows.value = [...rows.value, ...page.data]
      nextCursor.value = page.nextCursor
    } catch (error) {
      if (mine === generation) problem.value = asProblem(error)
    } finally {
      loadingMore.value = false
    }
  }

  return { rows, nextCursor, loading, loadingMore, problem, reload, loadMore }
}

/** What `components/PagedTable.vue` draws of a cursor list: its rows, its state and "Show more". */
export type CursorListState<Row> = Pick<ReturnType<typeof useCursorList<Row>>, 'rows' | 'nextCursor' | 'loading' | 'loadingMore' | 'problem' | 'loadMore'>
