import type { JsonOf } from '#core/contract/typed_schema'
import { isoDateTimeSchema } from '#core/contract/schemas'
import { licenseKeyStatuses, licenseModes, licenseStates } from '#modules/license/services/license_state'

const nullableDateTime = { ...isoDateTimeSchema, type: ['string', 'null'] } as const

/** What GET and PUT /api/v1/license answer; `LicenseService.status` builds it. Never the key itself. */
export const licenseStatusSchema = {
  type: 'object',
  required: ['mode', 'state', 'keyPrefix', 'keyStatus', 'server', 'lastCheckedAt', 'lastAnswerAt'],
  properties: {
    mode: { enum: licenseModes, description: 'community: no license server is configured, nothing is checked or withdrawn' },
    state: {
      enum: licenseStates,
      description: 'offline: the license server does not answer (information only); withdrawn: writes are refused',
    },
    keyPrefix: { type: ['string', 'null'], description: 'First four characters of the license key; the key itself is never shown' },
    keyStatus: {
      enum: licenseKeyStatuses,
      description: 'must_be_set_again: the stored key was sealed with another master key and must be entered again',
    },
    server: { type: ['string', 'null'], description: 'GATEWAY_LICENSE_SERVER, without any credentials it holds' },
    lastCheckedAt: { ...nullableDateTime, description: 'When the license server was last asked' },
    lastAnswerAt: { ...nullableDateTime, description: 'When the license server last answered valid or withdrawn' },
  },
} as const
export type LicenseStatus = JsonOf<typeof licenseStatusSchema>
