import { randomInt } from 'node:crypto'
import type { TransactionClientContract } from '@adonisjs/lucid/types/database'
import type { DateTime } from 'luxon'
import { ApiError } from '#core/http/api_error'
import { publicBaseUrl } from '#core/http/public_url'
import Link, { shortUrlOf } from '#modules/messages/models/link'

const CODE_ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
export const SHORT_CODE_LENGTH = 7

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

export function newShortCode(): string {
  let code = ''
  for (let index = 0; index < SHORT_CODE_LENGTH; index++) code += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)]
  return code
}

/** Length of every short link, so a client can compute a text's length before sending. */
export function shortUrlLength(): number {
  return shortUrlOf('x'.repeat(SHORT_CODE_LENGTH)).length
}

/**
 * Replaces every http(s) address of a text by a short link of the gateway (spec, Send request
 * `shortenLinks`). The same address twice gives one link; an address that already is one of
 * the gateway's links is left alone. Runs inside the send's transaction.
 */
export function assertShortLinksPossible(): string {
  const base = publicBaseUrl()
  if (!base) {
    throw new ApiError('VALIDATION_ERROR', 'shortenLinks needs GATEWAY_PUBLIC_URL, the address recipients reach the gateway at', [
      { field: 'shortenLinks', rule: 'publicUrl', message: 'Set GATEWAY_PUBLIC_URL on the gateway to use short links' },
    ])
  }
  return base
}

export async function shortenLinks(text: string, trx: TransactionClientContract, now: DateTime): Promise<string> {
  const ownPrefix = `${assertShortLinksPossible()}/l/`
  const targets = [...new Set(findAddresses(text))].filter((url) => !url.startsWith(ownPrefix))
  if (!targets.length) return text

  const shortFor = new Map<string, string>()
  for (const url of targets) {
    const link = await Link.create({ code: newShortCode(), url, clicks: 0, createdAt: now }, { client: trx })
    shortFor.set(url, shortUrlOf(link.code))
  }
  return text.replace(URL_IN_TEXT, (match) => {
    const url = trimTrailing(match)
    const short = shortFor.get(url)
    return short ? short + match.slice(url.length) : match
  })
}
