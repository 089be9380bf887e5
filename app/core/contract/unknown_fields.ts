import type { HttpContext } from '@adonisjs/core/http'
import type { NextFn } from '@adonisjs/core/types/http'
import { ApiError } from '#core/http/api_error'
import type { JsonSchema } from '#core/contract/route_contract'

export interface UnknownField {
  /** Dotted path, list positions as numbers: `sending.prefixRules.0.slot`. */
  field: string
  /** The fields the schema names at that place. */
  known: string[]
}

/** Where a body holds fields its schema does not name. */
export function unknownFieldsOf(value: unknown, schema: JsonSchema | undefined, path = ''): UnknownField[] {
  if (!schema || value === null || typeof value !== 'object') return []
  if (Array.isArray(value)) {
    const items = schema.items as JsonSchema | undefined
    return value.flatMap((item, index) => unknownFieldsOf(item, items, `${path}${index}.`))
  }
  const branches = schema.anyOf as JsonSchema[] | undefined
  if (branches) return unknownFieldsOfUnion(value as Record<string, unknown>, branches, path)
  const properties = schema.properties as Record<string, JsonSchema> | undefined
  if (!properties) return []
  return Object.entries(value).flatMap(([key, field]) => {
    if (Object.hasOwn(properties, key)) return unknownFieldsOf(field, properties[key], `${path}${key}.`)
    return schema.additionalProperties === false ? [{ field: `${path}${key}`, known: Object.keys(properties) }] : []
  })
}

/**
 * A union (rule conditions, actions): fine when one branch names every field; otherwise judged
 * by the branch its `type` field chooses, so the answer names that kind's fields.
 */
function unknownFieldsOfUnion(value: Record<string, unknown>, branches: JsonSchema[], path: string): UnknownField[] {
  const verdicts = branches.map((branch) => unknownFieldsOf(value, branch, path))
  if (verdicts.some((unknown) => unknown.length === 0)) return []
  const chosen = branches.findIndex((branch) => {
    const type = (branch.properties as Record<string, JsonSchema> | undefined)?.type
    return Array.isArray(type?.enum) && type.enum.includes(value.type)
  })
  return verdicts[chosen === -1 ? 0 : chosen]
}

/** A field path is quoted back at most this long: the caller chose it, and it can be megabytes. */
export const QUOTED_PATH_MAX = 100

/** The path as an answer may quote it: cut to {@link QUOTED_PATH_MAX} characters, marked with `…`. */
export function quotedPath(path: string): string {
  return path.length > QUOTED_PATH_MAX ? `${path.slice(0, QUOTED_PATH_MAX)}…` : path
}

/**
 * Route middleware after the body parser: a field the route's body schema does not name is
 * refused, as the OpenAPI document says (`additionalProperties: false`), rather than dropped
 * in silence (a `simslot` typo would otherwise send from any SIM). The caller's field name is
 * quoted once, in `details[].field`, and cut short; the messages name only the known fields.
 */
export function refuseUnknownFields(schema: JsonSchema) {
  return async (ctx: HttpContext, next: NextFn) => {
    const unknown = unknownFieldsOf(ctx.request.body(), schema)
    if (unknown.length) {
      const details = unknown.slice(0, 20).map(({ field, known }) => ({
        field: quotedPath(field),
        rule: 'unknown',
        message: `Unknown field; ${known.length ? `known here: ${known.join(', ')}` : 'this endpoint takes no fields'}`,
      }))
      throw new ApiError('VALIDATION_ERROR', details[0].message, details)
    }
    return next()
  }
}

/**
 * A query parameter the route does not name (`known`, none when it takes no query) is refused
 * before the others are validated, rather than dropped: a misspelt filter (`stauts=failed`,
 * `deviceid=2`) would otherwise answer, export or count every message as if it were the ones
 * asked for. Named once, quoted short, as an unknown body field is.
 */
export function refuseUnknownQuery(query: Record<string, unknown>, known: string[]): void {
  const unknown = Object.keys(query).filter((name) => !known.includes(name))
  if (!unknown.length) return
  const message = known.length ? `Unknown query parameter; known here: ${known.join(', ')}` : 'Unknown query parameter; this endpoint takes none'
  const details = unknown.slice(0, 20).map((name) => ({ field: quotedPath(name), rule: 'unknown', message }))
  throw new ApiError('VALIDATION_ERROR', message, details)
}
