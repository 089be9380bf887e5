import vine from '@vinejs/vine'
import { sectionFields } from '#core/contract/module_vocabulary'

export type RoutingMode = 'round_robin' | 'priority' | 'least_used'

/**
 * Settings > General: text options applied when a message leaves for a phone, not when it is
 * accepted (the stored body stays as sent; a phone's own options may override them).
 */
const textOptionDefaults = {
  stripDiacritics: false,
  trimWhitespace: false,
  uppercase: false,
}

/** Settings > Sending: how a phone and SIM are chosen, and each SIM's cadence. */
const routingDefaults = {
  /** How a SIM is chosen when the send does not force one. */
  routingMode: 'round_robin' as RoutingMode,
  /** For routingMode priority: SIMs in order of preference; others come after. */
  priority: [] as Array<{ deviceId: string; simSlot: number }>,
  /** Destination prefix → phone (and SIM): the first matching rule wins. */
  prefixRules: [] as Array<{ prefix: string; deviceId: string; simSlot?: number | null }>,
  /** Minimum seconds between two SMS of one SIM (0: none). Held messages show sim_cadence. */
  simMinIntervalSeconds: 0,
  /** Most SMS per minute per SIM (null: no limit). Held messages show sim_rate. */
  simPerMinuteLimit: null as number | null,
}

type TextOptionSettings = typeof textOptionDefaults
type RoutingSettings = typeof routingDefaults

declare module '#core/settings/settings_catalogue' {
  interface GeneralSettings extends TextOptionSettings {}
  interface SendingSettings extends RoutingSettings {}
}

const deviceId = vine.string().regex(/^\d{1,15}$/)
const simSlot = vine.number({ strict: true }).in([0, 1])

export const deviceSettings = [
  sectionFields('general', {
    defaults: textOptionDefaults,
    change: {
      stripDiacritics: vine.boolean({ strict: true }),
      trimWhitespace: vine.boolean({ strict: true }),
      uppercase: vine.boolean({ strict: true }),
    },
  }),
  sectionFields('sending', {
    defaults: routingDefaults,
    change: {
      routingMode: vine.enum(['round_robin', 'priority', 'least_used'] as const),
      priority: vine.array(vine.object({ deviceId, simSlot })).maxLength(100),
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
      simMinIntervalSeconds: vine.number({ strict: true }).withoutDecimals().range([0, 3600]),
      simPerMinuteLimit: vine.number({ strict: true }).withoutDecimals().range([1, 600]).nullable(),
    },
  }),
]
