import type { HttpContext } from '@adonisjs/core/http'
import type { NextFn } from '@adonisjs/core/types/http'
import { ApiError } from '#core/http/api_error'
import { quotedPath } from '#core/contract/unknown_fields'

/**
 * The dotted path of the first string in `value` (a field name or a value, at any depth) that
 * is not well-formed UTF-16, i.e. holds a lone surrogate (`"\ud800"` is valid JSON), or null.
 * Such text cannot be stored or sent as UTF-8 and makes validators throw (`encodeURI` in the
 * e-mail rule), so it is refused once here for every route. The walk keeps its own stack: the
 * body parser lets nesting through that a recursive walk could not follow.
 */
export function illFormedTextPath(value: unknown): string | null {
  // Paths are built only for the culprit: most bodies have none, and a list can be long.
  interface Place {
    value: unknown
    key: string
    parent: Place | null
  }
  const pathOf = (place: Place | null, last?: string): string => {
    const keys = last === undefined ? [] : [last]
    for (let at = place; at?.parent; at = at.parent) keys.push(at.key)
    return keys.reverse().join('.')
  }
  const pending: Place[] = [{ value, key: '', parent: null }]
  while (pending.length) {
    const place = pending.pop()!
    const current = place.value
    if (typeof current === 'string') {
      if (!current.isWellFormed()) return pathOf(place) || 'body'
      continue
    }
    if (current === null || typeof current !== 'object') continue
    const entries = Array.isArray(current) ? current.map((item, index) => [String(index), item] as const) : Object.entries(current)
    for (let index = entries.length - 1; index >= 0; index--) {
      const [key, item] = entries[index]
      // A name is quoted back only once it is well formed: U+FFFD stands for the lone half.
      if (!key.isWellFormed()) return pathOf(place, key.toWellFormed())
      pending.push({ value: item, key, parent: place })
    }
  }
  return null
}

/** Route middleware after the body parser: a body with a lone surrogate anywhere is 400. */
export async function refuseIllFormedText(ctx: HttpContext, next: NextFn) {
  const path = illFormedTextPath(ctx.request.body())
  if (path !== null) {
    const message = 'Text must be valid Unicode: a lone UTF-16 surrogate (such as \\ud800) is not accepted'
    throw new ApiError('VALIDATION_ERROR', message, [{ field: quotedPath(path), rule: 'unicode', message }])
  }
  return next()
}
