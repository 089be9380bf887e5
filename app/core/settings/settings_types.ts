import type { JsonSchema } from '#core/contract/route_contract'
import type { FieldError } from '#core/settings/settings_store'

/**
 * Where a settings change holds a value of another JSON type than its schema in the OpenAPI
 * document states: `null` where the field is not nullable, a string where a number is expected,
 * a number with decimals where an integer is, a block that is not an object, a field the
 * section does not name. These are the caller's malformed requests (400 in every section);
 * a value of the right type that a rule refuses (a range, an enum, a pattern) is judged after.
 *
 * Paths are relative to the schema given (the store prefixes the section).
 */
export function typeErrorsOf(value: unknown, schema: JsonSchema | undefined, path = ''): FieldError[] {
  if (!schema) return []
  const expected = expectedTypes(schema)
  if (expected && !expected.some((type) => isOfType(value, type))) {
    const name = path || 'value'
    const nullable = expected.includes('null')
    const wanted = expected.filter((type) => type !== 'null')
    const message =
      value === null && !nullable
        ? `The ${name} field cannot be null; send a value or leave the field out`
        : `The ${name} field must be ${wanted.map(article).join(' or ')}${nullable ? ' or null' : ''}`
    return [{ field: name, rule: value === null ? 'notNull' : wanted[0] ?? 'null', message }]
  }
  for (const combination of ['anyOf', 'oneOf'] as const) {
    const branches = schema[combination] as JsonSchema[] | undefined
    if (!Array.isArray(branches)) continue
    const verdicts = branches.map((branch) => typeErrorsOf(value, branch, path))
    if (verdicts.some((errors) => errors.length === 0)) return []
    return verdicts[0]
  }
  if (Array.isArray(value)) {
    const items = schema.items as JsonSchema | undefined
    return value.flatMap((item, index) => typeErrorsOf(item, items, join(path, String(index))))
  }
  if (value === null || typeof value !== 'object') return []
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>
  const known = Object.keys(properties)
  return Object.entries(value).flatMap(([key, field]) => {
    if (Object.hasOwn(properties, key)) return typeErrorsOf(field, properties[key], join(path, key))
    if (schema.additionalProperties !== false) return []
    // The caller's field name is not repeated in the message: `field` names it.
    return [{ field: join(path, key), rule: 'unknown', message: `Unknown setting; known here: ${known.join(', ')}` }]
  })
}

type JsonType = 'null' | 'boolean' | 'integer' | 'number' | 'string' | 'array' | 'object'

/** The JSON types a schema admits: its `type`, else the types of its `enum` values; null: any. */
function expectedTypes(schema: JsonSchema): JsonType[] | null {
  if (typeof schema.type === 'string') return [schema.type as JsonType]
  if (Array.isArray(schema.type)) return schema.type as JsonType[]
  if (Array.isArray(schema.enum)) return [...new Set(schema.enum.map(typeOf))]
  return null
}

function typeOf(value: unknown): JsonType {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number'
  return typeof value as JsonType
}

function isOfType(value: unknown, type: JsonType): boolean {
  const actual = typeOf(value)
  return actual === type || (type === 'number' && actual === 'integer')
}

function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`
}

function join(path: string, key: string): string {
  return path ? `${path}.${key}` : key
}
