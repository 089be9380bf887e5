import vine from '@vinejs/vine'
import { scopes } from '#core/http/access'
import { documentedAs } from '#core/contract/schemas'
import { parseAllowedEntry } from '#modules/auth/services/ip_allow_list'

const allowedAddress = vine.createRule((value, _options, field) => {
  if (typeof value === 'string' && !parseAllowedEntry(value)) {
    field.report('The {{ field }} field must be an IPv4 or IPv6 address or CIDR range', 'ipOrCidr', field)
  }
})

const fields = {
  name: vine.string().trim().minLength(1).maxLength(80),
  scope: vine.enum(scopes),
  allowedIps: vine
    .array(
      vine
        .string()
        .trim()
        .maxLength(64)
        .use(allowedAddress())
        .use(documentedAs({ description: 'IPv4 or IPv6 address, or CIDR range', examples: ['203.0.113.7', '10.0.0.0/8', '2001:db8::/32'] }))
    )
    .maxLength(50),
  callsPerMinute: vine.number({ strict: true }).withoutDecimals().range([1, 1_000_000]).nullable(),
  callsPerDay: vine.number({ strict: true }).withoutDecimals().range([1, 100_000_000]).nullable(),
}

export const createApiKeyValidator = vine.compile(
  vine.object({
    name: fields.name,
    scope: fields.scope,
    allowedIps: fields.allowedIps.optional(),
    callsPerMinute: fields.callsPerMinute.optional(),
    callsPerDay: fields.callsPerDay.optional(),
  })
)

/** Partial; `null` clears a limit. */
export const updateApiKeyValidator = vine.compile(
  vine.object({
    name: fields.name.optional(),
    scope: fields.scope.optional(),
    allowedIps: fields.allowedIps.optional(),
    callsPerMinute: fields.callsPerMinute.optional(),
    callsPerDay: fields.callsPerDay.optional(),
  })
)
