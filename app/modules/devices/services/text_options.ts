import type { TextOptions } from '#modules/devices/models/device'

export interface EffectiveTextOptions {
  stripDiacritics: boolean
  trimWhitespace: boolean
  uppercase: boolean
}

/** The phone's own options where it has them, Settings > General otherwise. */
export function effectiveTextOptions(general: EffectiveTextOptions, phone: TextOptions): EffectiveTextOptions {
  return {
    stripDiacritics: phone.stripDiacritics ?? general.stripDiacritics,
    trimWhitespace: phone.trimWhitespace ?? general.trimWhitespace,
    uppercase: phone.uppercase ?? general.uppercase,
  }
}

/**
 * Applied when a message leaves for a phone, so the phone's own options count. Stripping diacritics
 * keeps characters the GSM alphabet has (é, è, à, ù, ì, ò, Ç, É, Ä, Ö, Ñ, Ü, ä, ö, ñ, ü, ß, Å, å,
 * Æ, æ, Ø, ø), so stripping never makes a text longer in SMS terms.
 */
export function applyTextOptions(text: string, options: EffectiveTextOptions): string {
  let result = text
  if (options.trimWhitespace) result = result.replace(/[ \t]+/g, ' ').replace(/ *\n */g, '\n').replace(/\n{3,}/g, '\n\n').trim()
  // Uppercase before stripping: an uppercase accent outside the GSM alphabet (È) is then stripped.
  if (options.uppercase) result = result.toUpperCase()
  if (options.stripDiacritics) {
    result = [...result]
      .map((character) =>
        GSM_ACCENTED.has(character) ? character : (STROKED[character] ?? character.normalize('NFD').replace(/[\u0300-\u036f]/g, ''))
      )
      .join('')
  }
  return result
}

const GSM_ACCENTED = new Set([...'éèàùìòÇÉÄÖÑÜäöñüßÅåÆæØø'])

/** Letters with a stroke or bar are not "letter + accent" to Unicode: NFD leaves them whole. */
const STROKED: Record<string, string> = { Ł: 'L', ł: 'l', Đ: 'D', đ: 'd', Ħ: 'H', ħ: 'h', Ŧ: 'T', ŧ: 't', ı: 'i' }
