import { randomInt } from 'node:crypto'
import type { TransactionClientContract } from '@adonisjs/lucid/types/database'
import type { DateTime } from 'luxon'
import { ApiError } from '#core/http/api_error'
import { publicBaseUrl } from '#core/http/public_url'
import { findAddresses, replaceAddresses } from '#core/sms/links_in_text'
import { LinkStore } from '#modules/links/stores/link_store'

const CODE_ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
export const SHORT_CODE_LENGTH = 7

/** A store holds no state: a plain function makes its own (docs/modules.md, Data access). */
const links = new LinkStore()

export function shortUrlOf(code: string): string {
  return `${publicBaseUrl() ?? ''}/l/${code}`
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
 * Replaces every http(s) address of a text by a short link of the gateway (docs/sending.md,
 * Short links). The same address twice gives one link; an address that already is one of
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
    const link = await links.addLink(trx, { code: newShortCode(), url, createdAt: now })
    shortFor.set(url, shortUrlOf(link.code))
  }
  return replaceAddresses(text, (url) => shortFor.get(url))
}
