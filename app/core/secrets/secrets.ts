import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'

/**
 * Encrypts values kept in the database (device credentials, webhook secrets, the license key)
 * with a key derived from the master key, which is never in the database.
 *
 * Sealed format, version 1: `v1.<iv>.<tag>.<ciphertext>`, each part base64url, AES-256-GCM
 * with a 12-byte IV. The version prefix lets a later format coexist with stored v1 values.
 */
export type Revealed = { readable: true; value: string } | { readable: false; reason: string }

export const MUST_BE_SET_AGAIN =
  'must be set again: it was encrypted with another master key (the database was restored without its secret.key)'

export class Secrets {
  #key: Buffer

  constructor(key: Buffer) {
    if (key.length !== 32) throw new Error('the secrets key must be 32 bytes')
    this.#key = key
  }

  seal(plain: string): string {
    const iv = randomBytes(12)
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv)
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()])
    const tag = cipher.getAuthTag()
    return ['v1', ...[iv, tag, body].map((part) => part.toString('base64url'))].join('.')
  }

  /**
   * Never throws on a stored value: one that no longer decrypts is reported as something the
   * operator must set again, so a restore without the key degrades instead of crashing.
   */
  reveal(sealed: string): Revealed {
    const parts = sealed.split('.')
    if (parts.length !== 4 || parts[0] !== 'v1') {
      return { readable: false, reason: 'must be set again: the stored value is not in a known format' }
    }
    try {
      const [iv, tag, body] = parts.slice(1).map((part) => Buffer.from(part, 'base64url'))
      if (iv.length !== 12 || tag.length !== 16) throw new Error('bad lengths')
      const decipher = createDecipheriv('aes-256-gcm', this.#key, iv)
      decipher.setAuthTag(tag)
      const plain = Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8')
      return { readable: true, value: plain }
    } catch {
      return { readable: false, reason: MUST_BE_SET_AGAIN }
    }
  }
}
