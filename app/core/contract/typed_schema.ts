/**
 * The TypeScript type of the JSON an answer's schema describes, so the schema a route contract
 * publishes and the function that builds the answer come from one definition
 * (docs/api-conventions.md, "One definition per answer"). A schema is written `as const`:
 *
 *   export const linkSchema = { type: 'object', required: ['id'], properties: { id: { type: 'string' } } } as const
 *   export function linkResource(link: Link): JsonOf<typeof linkSchema> { return { id: String(link.id) } }
 *
 * A resource function that leaves out a required field, or adds one the schema does not name,
 * then fails the type check. Only the keywords the gateway's schemas use are read: `type` (one or
 * a list), `enum`, `const`, `properties` + `required`, `items`, `additionalProperties`, `oneOf`,
 * `anyOf`, a component reference made by `RouteRegistry.addSchema`, and a schema printed by a
 * validator (`ValueSchema`, `validatorSchema` in schemas.ts) that carries its value's type.
 */

declare const describedBy: unique symbol

/**
 * `{$ref: '#/components/schemas/Name'}` that still knows the schema it names. The symbol key is
 * a type only: the object is the plain reference in the document.
 */
export type SchemaRef<S> = { readonly $ref: string; readonly [describedBy]?: S }

declare const describesValue: unique symbol

/**
 * A JSON schema printed at run time by the validator that checks the same value (VineJS
 * `toJSONSchema()`), which carries that validator's type of the value: the schema and the type
 * are then two readings of one definition, the validator (settings, a rule's conditions and
 * actions). The symbol key is a type only: the object is the plain schema in the document.
 */
export type ValueSchema<T> = { readonly [key: string]: unknown; readonly [describesValue]?: T }

type Simplify<T> = { [K in keyof T]: T[K] } & {}

type ObjectOf<S> = S extends { readonly properties: infer P }
  ? Simplify<
      { -readonly [K in keyof P as K extends RequiredOf<S> ? K : never]: JsonOf<P[K]> } & {
        -readonly [K in keyof P as K extends RequiredOf<S> ? never : K]?: JsonOf<P[K]>
      } & AdditionalOf<S>
    >
  : S extends { readonly additionalProperties: infer A }
    ? A extends false
      ? Record<string, never>
      : Record<string, A extends true ? unknown : JsonOf<A>>
    : Record<string, unknown>

type RequiredOf<S> = S extends { readonly required: readonly (infer R)[] } ? R : never

type AdditionalOf<S> = S extends { readonly additionalProperties: infer A }
  ? A extends false
    ? {}
    : { [key: string]: A extends true ? unknown : JsonOf<A> }
  : {}

type TypeNamed<T, S> = T extends 'string'
  ? string
  : T extends 'integer' | 'number'
    ? number
    : T extends 'boolean'
      ? boolean
      : T extends 'null'
        ? null
        : T extends 'array'
          ? S extends { readonly items: infer I }
            ? JsonOf<I>[]
            : unknown[]
          : T extends 'object'
            ? ObjectOf<S>
            : unknown

/** The value a JSON schema (written `as const`) describes. */
export type JsonOf<S> = S extends { readonly [describesValue]?: infer V } ? (unknown extends V ? JsonOfWritten<S> : V) : JsonOfWritten<S>

type JsonOfWritten<S> = S extends { readonly $ref: string }
  ? S extends { readonly [describedBy]?: infer T }
    ? unknown extends T
      ? unknown
      : JsonOf<T>
    : unknown
  : S extends { readonly const: infer C }
    ? C
    : S extends { readonly enum: readonly (infer E)[] }
      ? E
      : S extends { readonly oneOf: readonly (infer M)[] }
        ? JsonOf<M>
        : S extends { readonly anyOf: readonly (infer M)[] }
          ? JsonOf<M>
          : S extends { readonly type: readonly (infer T)[] }
            ? TypeNamed<T, S>
            : S extends { readonly type: infer T }
              ? TypeNamed<T, S>
              : unknown
