import type { HttpContext } from '@adonisjs/core/http'
import type { NextFn } from '@adonisjs/core/types/http'
import { ApiError } from '#core/http/api_error'
import type { JsonSchema } from '#core/contract/route_contract'
import { quotedPath } from '#core/contract/unknown_fields'

/** Whether a JSON schema lets `null` through: a `null` type, enum value or branch, or no constraint at all. */
export function admitsNull(schema: JsonSchema | undefined): boolean {
  if (!schema) return true
  const verdicts: boolean[] = []
  if (schema.type !== undefined) verdicts.push(Array.isArray(schema.type) ? schema.type.includes('null') : schema.type === 'null')
  if (Array.isArray(schema.enum)) verdicts.push(schema.enum.includes(null))
  if ('const' in schema) verdicts.push(schema.const === null)
  for (const combination of ['anyOf', 'oneOf'] as const) {
    const branches = schema[combination]
    if (Array.isArray(branches)) verdicts.push(branches.some((branch) => admitsNull(branch as JsonSchema)))
  }
  return verdicts.every(Boolean)
}

/** Paths where a body holds `null` and its schema does not admit it. */
export function misplacedNullsOf(value: unknown, schema: JsonSchema | undefined, path = ''): string[] {
  if (!schema || value === null || typeof value !== 'object') return []
  const check = (field: unknown, fieldSchema: JsonSchema | undefined, fieldPath: string): string[] => {
    if (field !== null) return misplacedNullsOf(field, fieldSchema, `${fieldPath}.`)
    return fieldSchema && !admitsNull(fieldSchema) ? [fieldPath] : []
  }
  if (Array.isArray(value)) {
    const items = schema.items as JsonSchema | undefined
    return items ? value.flatMap((item, index) => check(item, items, `${path}${index}`)) : []
  }
  const properties = schema.properties as Record<string, JsonSchema> | undefined
  if (!properties) return []
  return Object.entries(value).flatMap(([key, field]) => (Object.hasOwn(properties, key) ? check(field, properties[key], `${path}${key}`) : []))
}

/**
 * Route middleware after the body parser: `null` is accepted only where the OpenAPI document
 * says the field is nullable. VineJS reads `null` in an optional field as "not sent" and drops
 * it, so `{"name": null}` would pass in silence where the document promises a string.
 */
export function refuseMisplacedNulls(schema: JsonSchema) {
  return async (ctx: HttpContext, next: NextFn) => {
    const misplaced = misplacedNullsOf(ctx.request.body(), schema)
    if (misplaced.length) {
      const details = misplaced.slice(0, 20).map((field) => ({
        field: quotedPath(field),
        rule: 'notNull',
        message: `The ${quotedPath(field)} field cannot be null; send a value or leave the field out`,
      }))
      throw new ApiError('VALIDATION_ERROR', details[0].message, details)
    }
    return next()
  }
}
