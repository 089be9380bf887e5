import { ApiError } from '#core/http/api_error'

/** A numeric row id from the path; anything else is simply not found. */
export function idParam(value: unknown, what: string): number {
  const id = typeof value === 'string' && /^[1-9]\d{0,15}$/.test(value) ? Number(value) : Number.NaN
  if (!Number.isSafeInteger(id)) throw ApiError.notFound(what)
  return id
}
