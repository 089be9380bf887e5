import { shallowRef } from 'vue'
import { asProblem, type ApiProblem } from '../api/client'

/**
 * The failure of the reads a page makes beside its main one (the groups of a picker, the draft
 * it opens): `caught` is the rejection handler of each (never an empty one, which would hide a
 * refused call), and the page shows `problem`, the last failure, where it shows its other errors.
 */
export function useReadProblem() {
  const problem = shallowRef<ApiProblem | null>(null)
  function caught(error: unknown) {
    problem.value = asProblem(error)
  }
  return { problem, caught }
}
