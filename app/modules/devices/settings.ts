import vine from '@vinejs/vine'
import { sectionFields } from '#core/contract/module_vocabulary'

const routingModes = ['round_robin', 'priority', 'least_used'] as const
export type RoutingMode = (typeof routingModes)[number]

const deviceId = vine.string().regex(/^\d{1,15}$/)
const simSlot = vine.number({ strict: true }).in([0, 1])

export const deviceSettings = [
  // Settings > General: text options applied when a message leaves for a phone, not when it is
  // accepted (the stored body stays as sent; a phone's own options may override them).
  sectionFields('general', {
    defaults: {
      stripDiacritics: false,
      trimWhitespace: false,
      uppercase: false,
    },
    change: {
      stripDiacritics: vine.boolean({ strict: true }),
      trimWhitespace: vine.boolean({ strict: true }),
      uppercase: vine.boolean({ strict: true }),
    },
  }),
  // Settings > Sending: how a phone and SIM are chosen, and each SIM's cadence.
  sectionFields('sending', {
    defaults: {
      routingMode: 'round_robin',
      priority: [],
      prefixRules: [],
      simMinIntervalSeconds: 0,
      simPerMinuteLimit: null,
    },
    change: {
      // How a SIM is chosen when the send does not force one.
      routingMode: vine.enum(routingModes),
      // For routingMode priority: SIMs in order of preference; others come after.
      priority: vine.array(vine.object({ deviceId, simSlot })).maxLength(100),
      // Destination prefix → phone (and SIM): the first matching rule wins.
      prefixRules: vine
        .array(
          vine.object({
            prefix: vine.string().regex(/^\+\d{1,14}$/),
            deviceId,
            // Absent or null: any SIM of the phone, in the routing mode's order.
            simSlot: simSlot.clone().nullable().optional(),
          })
        )
        .maxLength(200),
      // Minimum seconds between two SMS of one SIM (0: none). Held messages show sim_cadence.
      simMinIntervalSeconds: vine.number({ strict: true }).withoutDecimals().range([0, 3600]),
      // Most SMS per minute per SIM (null: no limit). Held messages show sim_rate.
      simPerMinuteLimit: vine.number({ strict: true }).withoutDecimals().range([1, 600]).nullable(),
    },
  }),
]

declare module '#core/settings/settings_catalogue' {
  interface RegisteredSettings {
    devices: typeof deviceSettings
  }
}
