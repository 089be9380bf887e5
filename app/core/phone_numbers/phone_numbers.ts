import { createRequire } from 'node:module'
import { parsePhoneNumberWithError, type CountryCode } from 'libphonenumber-js/max'
import { ApiError } from '#core/http/api_error'

/**
 * Calling code → its countries, main country first (`1` → US, `44` → GB). Parsing a local
 * number as that country handles its trunk prefix and its international call prefix (`00`).
 */
const countriesByCallingCode: Record<string, CountryCode[]> = createRequire(import.meta.url)(
  'libphonenumber-js/metadata.max.json'
).country_calling_codes

export function isKnownCallingCode(prefix: string): boolean {
  return /^\+\d{1,3}$/.test(prefix) && Object.hasOwn(countriesByCallingCode, prefix.slice(1))
}

/**
 * E.164 in, E.164 out (docs/api-conventions.md, Paths, formats, dates). A number without `+` is a
 * local dialled form and is completed with the local number prefix of Settings > Reception (`+33`,
 * say), national trunk prefix and international call prefix handled as that country dials them.
 */
export class PhoneNumbers {
  /**
   * Returns the E.164 form or throws INVALID_PHONE. `position` names the entry in a list; the
   * number itself never appears in the error (docs/api-conventions.md, Errors: no full phone number
   * in an error).
   */
  normalize(input: unknown, localPrefix: string | null, position?: number): string {
    const where = position === undefined ? {} : { position }
    if (typeof input !== 'string' || input.trim() === '') {
      throw new ApiError('INVALID_PHONE', 'A phone number is missing or is not text', { ...where, rule: 'e164' })
    }
    const text = input.trim()
    const international = text.startsWith('+')
    if (!international && !localPrefix) {
      throw new ApiError(
        'INVALID_PHONE',
        'The number is not in E.164 format (+ and country code) and no local number prefix is set in Settings > Reception',
        { ...where, rule: 'e164' }
      )
    }
    if (/[^\d\s().+-]/.test(text) || (text.match(/\+/g)?.length ?? 0) > 1 || (!international && text.includes('+'))) {
      throw new ApiError('INVALID_PHONE', 'The number may hold only digits, an initial + and separators', { ...where, rule: 'e164' })
    }
    try {
      const parsed = international
        ? parsePhoneNumberWithError(text)
        : parsePhoneNumberWithError(text, { defaultCountry: countriesByCallingCode[localPrefix!.slice(1)]?.[0] })
      if (!parsed.isPossible()) throw new Error('not possible')
      return parsed.number
    } catch {
      throw new ApiError('INVALID_PHONE', 'The number is not a possible phone number', { ...where, rule: 'e164' })
    }
  }
}
