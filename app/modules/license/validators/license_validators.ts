import vine from '@vinejs/vine'

/**
 * A license key as the license server issues it: printable ASCII without spaces, long enough
 * that its first four characters (shown and published) give nothing useful away.
 */
const MIN_LENGTH = 8
const MAX_LENGTH = 256
const PRINTABLE_WITHOUT_SPACES = /^[\x21-\x7E]+$/

export const replaceLicenseKeyValidator = vine.compile(
  vine.object({
    key: vine.string().trim().minLength(MIN_LENGTH).maxLength(MAX_LENGTH).regex(PRINTABLE_WITHOUT_SPACES),
  })
)

/** The same rule for a key given in the environment, which VineJS does not see. */
export function isWellFormedLicenseKey(key: string): boolean {
  return key.length >= MIN_LENGTH && key.length <= MAX_LENGTH && PRINTABLE_WITHOUT_SPACES.test(key)
}
