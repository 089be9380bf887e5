import vine from '@vinejs/vine'
import type { Infer, SchemaTypes } from '@vinejs/vine/types'
import type { JsonSchema } from '#core/contract/route_contract'
import type { JsonOf, ValueSchema } from '#core/contract/typed_schema'

/**
 * Fills a gap of VineJS `toJSONSchema()` (dates and custom rules come out as `{}`): a rule that checks nothing and only
 * adds `extra` to the field's JSON schema, for dates and custom rules that come out empty.
 * A function is read when the schema is built, for lists that modules fill at start (the
 * public events).
 * When `extra` states the type, it replaces the "any JSON value" list that `vine.any()` puts
 * there: both together would say "a string, and any of string, number, ..." and, worse, keep
 * a field documented as text from refusing `null` (null_fields.ts reads the same schema).
 */
export const documentedAs = vine.createRule<JsonSchema | (() => JsonSchema)>(() => {}, {
  toJSONSchema: (schema, extra) => {
    const stated = typeof extra === 'function' ? extra() : extra
    if ('type' in stated || 'oneOf' in stated || 'anyOf' in stated) delete schema.anyOf
    Object.assign(schema, stated)
  },
})

/**
 * The JSON schema of a VineJS schema, typed by the value it lets through: where an answer gives
 * back what a validator took in (a rule's conditions, a settings section), the validator is the
 * one definition of the document's schema and of the answer's type (`JsonOf` reads its `Infer`),
 * so the two cannot disagree and no second copy of the schema is written `as const`.
 */
export function validatorSchema<S extends SchemaTypes & { toJSONSchema(): object }>(schema: S): ValueSchema<Infer<S>> {
  return schema.toJSONSchema() as ValueSchema<Infer<S>>
}

export const isoDateTimeSchema = { type: 'string', format: 'date-time', examples: ['2026-05-04T09:30:00.000Z'] } as const

export const errorObjectSchema: JsonSchema = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message', 'requestId'],
      properties: {
        code: { type: 'string', description: 'Stable identifier. Clients test this' },
        message: { type: 'string', description: 'Short English explanation' },
        details: {
          description: 'Optional context: the field at fault and the rule, a limit, an expected value',
          oneOf: [{ type: 'object' }, { type: 'array', items: { type: 'object' } }],
        },
        requestId: { type: 'string', description: 'Identifies the request in gateway logs (same as X-Request-Id)' },
      },
    },
  },
}

/**
 * `{data: [item], nextCursor}`: the envelope of every list (docs/api-conventions.md, Lists).
 * Written `as const` around the item's own type, so `PageOf<typeof itemSchema>` is the typed
 * answer of a list whose items that schema types.
 */
export function pageOf<const S extends JsonSchema>(item: S) {
  return {
    type: 'object',
    required: ['data', 'nextCursor'],
    properties: {
      data: { type: 'array', items: item },
      nextCursor: {
        type: ['string', 'null'],
        description: 'Opaque; pass it back as `cursor` for the next page. null on the last page',
      },
    },
  } as const
}

/** The answer of a list of `S` (a schema or its `SchemaRef`): `{data: JsonOf<S>[], nextCursor}`. */
export type PageOf<S extends JsonSchema> = JsonOf<ReturnType<typeof pageOf<S>>>
