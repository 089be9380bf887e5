import type { FieldContext } from '@vinejs/vine/types'
import type { VineValidator } from '@vinejs/vine'
import type { ApiError } from '#core/http/api_error'

const REFUSALS = Symbol('refusals')

interface Refusal {
  error: ApiError
  rank: number
}

/**
 * Records, from a VineJS rule, a refusal that has its own code (`EMPTY_BODY`, `INVALID_PHONE`)
 * rather than a field error of `VALIDATION_ERROR`. It is answered when the handler takes the
 * value (`Refusable.accepted`), lowest `rank` first, so a route may first answer what the API
 * puts before it (the send route's idempotent replay). Only a validator wrapped by
 * `withRefusals` collects them.
 */
export function refuse(field: FieldContext, error: ApiError, rank: number): void {
  const refusals = (field.meta as Record<symbol, Refusal[] | undefined>)[REFUSALS]
  if (!refusals) throw new Error('refuse() needs a validator made with withRefusals()')
  refusals.push({ error, rank })
}

/** A validated value that may still carry refusals of its rules. */
export class Refusable<T> {
  readonly #value: T
  readonly #refusals: Refusal[]

  constructor(value: T, refusals: Refusal[]) {
    this.#value = value
    this.#refusals = refusals
  }

  /** The value, or the first-ranked refusal thrown (the first recorded among equals). */
  accepted(): T {
    if (this.#refusals.length) throw this.#refusals.reduce((first, next) => (next.rank < first.rank ? next : first)).error
    return this.#value
  }
}

type MetaOf<V> = V extends VineValidator<any, infer M> ? M : never
type OutputOf<V> = V extends VineValidator<any, any> ? Awaited<ReturnType<V['validate']>> : never

/**
 * A validator whose rules may `refuse`: its plain field errors throw at once (`VALIDATION_ERROR`),
 * its refusals wait in the `Refusable` it answers. It validates and documents itself like the
 * validator it wraps, so a route contract takes it as `body`. `accepted` states what the rules
 * guarantee once nothing is refused (a field an implicit rule refuses when missing is there).
 */
export function withRefusals<V extends VineValidator<any, any>, T = OutputOf<V>>(validator: V, accepted?: (value: OutputOf<V>) => T) {
  return {
    async validate(data: unknown, options: { meta: MetaOf<V> }): Promise<Refusable<T>> {
      const refusals: Refusal[] = []
      const value = (await validator.validate(data, { ...options, meta: { ...options.meta, [REFUSALS]: refusals } })) as OutputOf<V>
      return new Refusable(accepted ? accepted(value) : (value as unknown as T), refusals)
    },
    toJSONSchema: () => validator.toJSONSchema(),
  }
}
