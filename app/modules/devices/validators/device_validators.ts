import vine from '@vinejs/vine'
import { pairingApps } from '#modules/devices/services/pairing_apps'

const sim = vine.object({
  slot: vine.number({ strict: true }).in([0, 1]),
  label: vine.string().trim().maxLength(40).optional(),
  operator: vine.string().trim().maxLength(60).optional(),
  number: vine.string().trim().regex(/^\+[1-9]\d{6,14}$/).optional(),
})

export const pairValidator = vine.compile(
  vine.object({
    code: vine.string().trim().minLength(4).maxLength(32),
    name: vine.string().trim().minLength(1).maxLength(80),
    model: vine.string().trim().maxLength(120).optional(),
    appVersion: vine.string().trim().maxLength(40).optional(),
    sims: vine.array(sim).minLength(1).maxLength(2).distinct('slot'),
  })
)

const option = () => vine.boolean({ strict: true }).nullable().optional()

export const updateDeviceValidator = vine.compile(
  vine.object({
    name: vine.string().trim().minLength(1).maxLength(80).optional(),
    enabled: vine.boolean({ strict: true }).optional(),
    sims: vine
      .array(vine.object({ slot: vine.number({ strict: true }).in([0, 1]), dailyQuota: vine.number({ strict: true }).withoutDecimals().range([1, 100_000]).nullable() }))
      .maxLength(2)
      .distinct('slot')
      .optional(),
    /** Per-phone text options; null follows Settings > General. */
    textOptions: vine.object({ stripDiacritics: option(), trimWhitespace: option(), uppercase: option() }).optional(),
  })
)

/**
 * The optional body of a new pairing code: which kind of phone it pairs (our agent unless said).
 * Made when the routes are built, once every channel module has added its kind.
 */
export const pairingCodeValidator = () => vine.compile(vine.object({ app: vine.enum(pairingApps.names()).optional() }))
