/*
 * The http(s) addresses of an SMS text, as a send with `shortenLinks` finds and replaces them.
 * Pure (no Node or Adonis import): the dashboard's Send page counts a text with its short links
 * through this same code, so its counter and the gateway never disagree on what an address is.
 */

/** An http(s) address in free text, up to white space or a character no URL carries bare. */
const URL_IN_TEXT = /\bhttps?:\/\/[^\s<>"']+/gi

/** Sentence punctuation after an address belongs to the sentence, not the address. */
function trimTrailing(url: string): string {
  let trimmed = url.replace(/[.,;:!?]+$/, '')
  // A closing bracket belongs to the address only when the address opened one.
  for (const [open, close] of [['(', ')'], ['[', ']']]) {
    while (trimmed.endsWith(close) && trimmed.split(open).length < trimmed.split(close).length) {
      trimmed = trimmed.slice(0, -1).replace(/[.,;:!?]+$/, '')
    }
  }
  return trimmed
}

export function findAddresses(text: string): string[] {
  return [...text.matchAll(URL_IN_TEXT)].map(([match]) => trimTrailing(match))
}

/**
 * The text with each address replaced by what `replacement` gives for it (undefined keeps the
 * address); the punctuation after an address stays in place.
 */
export function replaceAddresses(text: string, replacement: (address: string) => string | undefined): string {
  return text.replace(URL_IN_TEXT, (match) => {
    const address = trimTrailing(match)
    const replaced = replacement(address)
    return replaced === undefined ? match : replaced + match.slice(address.length)
  })
}

/**
 * The text as a send with `shortenLinks` would store it, for counting ahead of the send: every
 * address becomes a stand-in of the length every short link has (`GET /links` answers it as
 * `shortUrlLength`). A short link is plain ASCII of the basic GSM table, and so is the stand-in.
 */
export function withShortLinkStandIns(text: string, shortUrlLength: number): string {
  return replaceAddresses(text, () => 'x'.repeat(shortUrlLength))
}
