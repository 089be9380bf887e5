import { ApiError } from '#core/http/api_error'
import { CUSTOM_FIELD_KEY, MAX_FIELDS, RESERVED_FIELD_KEYS } from '#modules/contacts/public'

/** Which column feeds which contact field; `fields` maps custom field keys to columns. */
export interface ImportMapping {
  phone: string
  firstName?: string
  lastName?: string
  company?: string
  email?: string
  tags?: string
  fields?: Record<string, string>
}

type BuiltIn = Exclude<keyof ImportMapping, 'fields'>

/** Header names people give each field (lower case, spaces, dashes and underscores removed). */
const HEADER_NAMES: Record<BuiltIn, string[]> = {
  phone: ['phone', 'phonenumber', 'mobile', 'mobilephone', 'mobilenumber', 'cell', 'cellphone', 'number', 'tel', 'telephone', 'msisdn', 'gsm', 'portable', 'telefono', 'telefon', 'numero'],
  firstName: ['firstname', 'first', 'givenname', 'forename', 'prenom', 'prénom', 'vorname', 'nombre'],
  lastName: ['lastname', 'last', 'surname', 'familyname', 'nom', 'nachname', 'apellido'],
  company: ['company', 'organisation', 'organization', 'business', 'societe', 'société', 'firma', 'empresa'],
  email: ['email', 'mail', 'emailaddress', 'courriel'],
  tags: ['tags', 'tag', 'labels', 'label'],
}

const simplified = (header: string) => header.toLowerCase().replace(/[\s_\-.]/g, '')

/** A custom field key from a header ("Loyalty points" → loyaltyPoints), or null when none fits. */
function fieldKeyOf(header: string): string | null {
  const words = header.normalize('NFD').replace(/[\u0300-\u036f]/g, '').split(/[^A-Za-z0-9]+/).filter(Boolean)
  if (!words.length) return null
  const key = words.map((word, index) => (index === 0 ? word.toLowerCase() : word[0].toUpperCase() + word.slice(1).toLowerCase())).join('').slice(0, 40)
  return CUSTOM_FIELD_KEY.test(key) && !RESERVED_FIELD_KEYS.includes(key) ? key : null
}

/** Most cells look like phone numbers: digits, maybe a +, spaces, dots, dashes or brackets. */
function looksLikePhones(cells: string[]): boolean {
  const filled = cells.filter(Boolean)
  return filled.length > 0 && filled.filter((cell) => /^\+?[\d\s().-]{6,20}$/.test(cell) && /\d{6}/.test(cell.replace(/\D/g, ''))).length >= Math.ceil(filled.length / 2)
}

/**
 * The mapping offered at upload: each column whose header names a contact field goes there
 * (the phone column by its header, else by its content), every other column becomes a custom
 * field named after its header.
 */
export function suggestMapping(columns: string[], sample: string[][]): ImportMapping {
  const taken = new Set<string>()
  const mapping: Partial<ImportMapping> = {}
  for (const field of Object.keys(HEADER_NAMES) as BuiltIn[]) {
    const column = columns.find((name) => !taken.has(name) && HEADER_NAMES[field].includes(simplified(name)))
    if (column) {
      mapping[field] = column
      taken.add(column)
    }
  }
  if (!mapping.phone) {
    const column = columns.find((name, index) => !taken.has(name) && looksLikePhones(sample.map((row) => row[index] ?? '')))
    if (column) {
      mapping.phone = column
      taken.add(column)
    }
  }
  const fields: Record<string, string> = {}
  for (const column of columns) {
    if (taken.has(column) || Object.keys(fields).length >= MAX_FIELDS) continue
    const key = fieldKeyOf(column)
    if (key && !(key in fields)) fields[key] = column
  }
  return { phone: mapping.phone ?? '', ...mapping, fields }
}

/** Refuses a mapping naming a column the file does not have, or a custom field key not allowed. */
export function checkMapping(mapping: ImportMapping, columns: string[]): void {
  const named: Array<[string, string | undefined]> = [
    ['mapping.phone', mapping.phone],
    ['mapping.firstName', mapping.firstName],
    ['mapping.lastName', mapping.lastName],
    ['mapping.company', mapping.company],
    ['mapping.email', mapping.email],
    ['mapping.tags', mapping.tags],
    ...Object.entries(mapping.fields ?? {}).map(([key, column]): [string, string] => [`mapping.fields.${key}`, column]),
  ]
  for (const [field, column] of named) {
    if (column !== undefined && !columns.includes(column)) {
      throw ApiError.validation(field, 'column', `The ${field} field names a column the file does not have`)
    }
  }
  for (const key of Object.keys(mapping.fields ?? {})) {
    if (!CUSTOM_FIELD_KEY.test(key) || RESERVED_FIELD_KEYS.includes(key)) {
      throw ApiError.validation(`mapping.fields.${key}`, 'fieldKey', 'A custom field key is a letter, then letters, digits or _ (up to 40), and not a built-in variable name')
    }
  }
  if (Object.keys(mapping.fields ?? {}).length > MAX_FIELDS) {
    throw ApiError.validation('mapping.fields', 'maxFields', `At most ${MAX_FIELDS} custom fields`)
  }
}
