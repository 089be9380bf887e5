/**
 * The license gate's vocabulary. `offline` is information only (the license server does not
 * answer); only `withdrawn` refuses writes.
 */
export const licenseStates = ['valid', 'offline', 'withdrawn'] as const
export type LicenseState = (typeof licenseStates)[number]

/**
 * `must_be_set_again`: the stored key was sealed with another master key (docs/license.md,
 * Configuration).
 */
export const licenseKeyStatuses = ['ok', 'missing', 'must_be_set_again'] as const
export type LicenseKeyStatus = (typeof licenseKeyStatuses)[number]

/** `community`: no license server configured, nothing is ever checked nor withdrawn. */
export const licenseModes = ['community', 'licensed'] as const
export type LicenseMode = (typeof licenseModes)[number]

export function isLicenseState(value: unknown): value is LicenseState {
  return licenseStates.includes(value as LicenseState)
}

/**
 * The part of a key that may be shown and published: the `id` of license events (docs/license.md,
 * States).
 */
export function keyPrefixOf(key: string): string {
  return key.slice(0, 4)
}
