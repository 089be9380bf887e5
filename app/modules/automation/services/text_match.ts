import { RE2JS } from 're2js'

/**
 * How a rule reads an SMS: case and accents ignored ("Stop", "STOP" and "stóp" are the same
 * word), and regular expressions run by RE2JS, whose matching time grows linearly with the text
 * whatever the pattern: a rule can never hang the gateway on a crafted SMS.
 */

function withoutAccents(text: string): string {
  return text.normalize('NFD').replace(/\p{M}/gu, '')
}

/** Lower case without diacritics, so comparisons ignore both. */
export function folded(text: string): string {
  return withoutAccents(text).toLowerCase()
}

/** The first word, folded, without the punctuation that may cling to it ("Stop!" is "stop"). */
export function firstWord(text: string): string {
  const word = folded(text).trim().split(/\s+/, 1)[0] ?? ''
  return word.replace(/^[\p{P}\p{S}]+|[\p{P}\p{S}]+$/gu, '')
}

/** The whole text as a keyword: folded, trimmed, final punctuation dropped ("STOP." is "stop"). */
export function asKeyword(text: string): string {
  return folded(text).trim().replace(/[\p{P}\p{S}\s]+$/u, '')
}

const compiled = new Map<string, RE2JS>()
const CACHE_SIZE = 200

function compile(pattern: string): RE2JS {
  let regex = compiled.get(pattern)
  if (!regex) {
    regex = RE2JS.compile(pattern, RE2JS.CASE_INSENSITIVE)
    if (compiled.size >= CACHE_SIZE) compiled.delete(compiled.keys().next().value!)
    compiled.set(pattern, regex)
  }
  return regex
}

/** Why RE2 refuses a pattern (backreferences, lookaround...), or null when it compiles. */
export function checkPattern(pattern: string): string | null {
  try {
    compile(withoutAccents(pattern))
    return null
  } catch (error) {
    return (error as Error).message.slice(0, 200)
  }
}

export type TextMatch = 'first_word' | 'contains' | 'regex'

export function textMatches(text: string, match: TextMatch, value: string): boolean {
  switch (match) {
    case 'first_word':
      return firstWord(text) === firstWord(value)
    case 'contains':
      return folded(text).includes(folded(value).trim())
    case 'regex':
      // Accents dropped on both sides as for the other matches; case is the engine's flag (lower-casing
      // the pattern would turn \D into \d).
      return compile(withoutAccents(value)).matcher(withoutAccents(text)).find()
  }
}
