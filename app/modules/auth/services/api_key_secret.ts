import { createHash, randomBytes } from 'node:crypto'

/** Recognisable in a leaked file or a secret scanner, never guessable: `gw_` + 256 random bits. */
export function newApiKeySecret(): string {
  return `gw_${randomBytes(32).toString('base64url')}`
}

/** What the database keeps instead of the secret. */
export function fingerprintOf(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex')
}
