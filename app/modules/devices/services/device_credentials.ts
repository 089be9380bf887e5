import { randomBytes, timingSafeEqual, createHash } from 'node:crypto'
import type { Secrets } from '#core/secrets/secrets'

/**
 * A device credential is `dev_<device id>.<secret>`. The gateway keeps the secret sealed with the
 * master key and compares by revealing it: a database restored without its secret.key cannot
 * reveal any, so every phone must pair again (docs/operations.md, restoring without the master key).
 */
export function newDeviceCredential(deviceId: number): { credential: string; secret: string } {
  const secret = randomBytes(32).toString('base64url')
  return { credential: `dev_${deviceId}.${secret}`, secret }
}

export function parseDeviceCredential(credential: string): { deviceId: number; secret: string } | null {
  const match = /^dev_([1-9]\d{0,15})\.([\w-]{43})$/.exec(credential.trim())
  return match ? { deviceId: Number(match[1]), secret: match[2] } : null
}

/** Whether a presented secret is the sealed one, in constant time. False when it cannot be revealed. */
export function credentialMatches(secrets: Secrets, sealed: string, presented: string): boolean {
  const revealed = secrets.reveal(sealed)
  if (!revealed.readable) return false
  // Hash both so the comparison is constant-time whatever the lengths.
  const expected = createHash('sha256').update(revealed.value).digest()
  const given = createHash('sha256').update(presented).digest()
  return timingSafeEqual(expected, given)
}
