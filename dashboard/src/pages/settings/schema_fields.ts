/**
 * A settings section read from its JSON schema (the OpenAPI document's `Settings`), for a section
 * that has no component of its own (SchemaSection.vue): which input each field gets, its label,
 * its help line and its value in words. No Vue and no API types here: tests call it directly.
 */

export interface FieldSchema {
  type?: string | string[]
  enum?: ReadonlyArray<unknown>
  anyOf?: FieldSchema[]
  title?: string
  description?: string
  format?: string
  writeOnly?: boolean
  minimum?: number
  maximum?: number
  items?: FieldSchema
  [keyword: string]: unknown
}

export interface SectionSchema {
  title?: string
  description?: string
  properties?: Record<string, FieldSchema>
  required?: string[]
  [keyword: string]: unknown
}

export type FieldInput =
  | { kind: 'boolean' }
  | { kind: 'number'; integer: boolean; nullable: boolean; min?: number; max?: number }
  | { kind: 'text'; nullable: boolean; secret: boolean }
  | { kind: 'choice'; nullable: boolean; options: Array<{ value: string | number; label: string }> }
  /** A list of words (keywords, addresses): one tag each. */
  | { kind: 'list'; nullable: boolean }
  /** Anything else (a list of objects): shown, changed through the API. */
  | { kind: 'other' }

export interface SchemaField {
  name: string
  label: string
  help?: string
  input: FieldInput
}

/** The sections of today's dashboard, in their tab order; any other comes after them, by name. */
export const FIRST_SECTIONS: ReadonlyArray<string> = ['general', 'sending', 'reception', 'notifications', 'backup']

/** `maxNotes` → "Max notes", `price_lists` → "Price lists", `round_robin` → "Round robin". */
export function humanize(name: string): string {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .trim()
    .toLowerCase()
  return words.charAt(0).toUpperCase() + words.slice(1)
}

/** The tabs: today's sections first in their order, then the others alphabetically. */
export function orderedSections(names: Iterable<string>): string[] {
  const all = [...new Set(names)]
  const first = FIRST_SECTIONS.filter((name) => all.includes(name))
  return [...first, ...all.filter((name) => !FIRST_SECTIONS.includes(name)).sort()]
}

/** The section's title: its schema's `title`, or its name in words. */
export function sectionTitle(name: string, schema?: SectionSchema): string {
  return schema?.title ?? humanize(name)
}

/** The section's intro: its schema's description, unless that is only the document's list of defaults. */
export function sectionIntro(schema?: SectionSchema): string | undefined {
  const text = schema?.description
  return text && !text.startsWith('Defaults:') ? text : undefined
}

function typesOf(schema: FieldSchema): string[] {
  const own = schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type]
  return [...own, ...(schema.anyOf ?? []).flatMap(typesOf)]
}

function enumOf(schema: FieldSchema): ReadonlyArray<unknown> | undefined {
  return schema.enum ?? schema.anyOf?.map(enumOf).find((values) => values !== undefined)
}

/** Which input a field's schema calls for. */
export function inputOf(schema: FieldSchema): FieldInput {
  const types = typesOf(schema)
  const nullable = types.includes('null') || (schema.enum ?? []).includes(null)
  const values = enumOf(schema)?.filter((value): value is string | number => typeof value === 'string' || typeof value === 'number')
  if (values?.length) return { kind: 'choice', nullable, options: values.map((value) => ({ value, label: typeof value === 'string' ? humanize(value) : String(value) })) }
  const [type] = types.filter((candidate) => candidate !== 'null')
  if (type === 'boolean') return { kind: 'boolean' }
  if (type === 'integer' || type === 'number') return { kind: 'number', integer: type === 'integer', nullable, min: schema.minimum, max: schema.maximum }
  if (type === 'string') {
    const secret = schema.writeOnly === true || schema.format === 'password' || /^write-only/i.test(schema.description ?? '')
    return { kind: 'text', nullable, secret }
  }
  if (type === 'array' && schema.items && typesOf(schema.items).includes('string') && !enumOf(schema.items)) return { kind: 'list', nullable }
  return { kind: 'other' }
}

/** Every field of a section, in the schema's order, with its label (`title`, or its name in words) and help (`description`). */
export function fieldsOf(schema: SectionSchema): SchemaField[] {
  return Object.entries(schema.properties ?? {}).map(([name, field]) => ({
    name,
    label: field.title ?? humanize(name),
    help: field.description,
    input: inputOf(field),
  }))
}

/** A value in words, for a role that may only read. */
export function shownValue(field: SchemaField, value: unknown): string {
  if (value === null || value === undefined || value === '') return 'Not set'
  if (field.input.kind === 'boolean') return value ? 'Yes' : 'No'
  if (field.input.kind === 'choice') return field.input.options.find((option) => option.value === value)?.label ?? String(value)
  if (Array.isArray(value)) return value.length ? value.map((item) => (typeof item === 'object' ? JSON.stringify(item) : String(item))).join(', ') : 'None'
  if (typeof value === 'object') return JSON.stringify(value)
  return String(value)
}

/** What an input's text stands for: an empty input of a field that may be null is null. */
export function textValue(input: FieldInput, text: string): string | null {
  return 'nullable' in input && input.nullable && text.trim() === '' ? null : text
}
