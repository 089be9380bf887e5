import type { FieldError } from '#core/settings/settings_store'
import { DeviceStore } from '#modules/devices/stores/device_store'

/** A store holds no state: a plain function makes its own (docs/modules.md, Data access). */
const devices = new DeviceStore()

interface SimReference {
  deviceId: string
  simSlot?: number | null
}

/**
 * Settings > Sending names phones and SIMs (priority list, prefix rules): a change naming a
 * phone that is not paired, or a SIM it does not have, is refused rather than kept as a rule
 * that never matches.
 */
export async function checkRoutingSettings(change: Record<string, unknown>): Promise<FieldError[]> {
  const references: Array<{ path: string; sim: SimReference }> = []
  for (const list of ['priority', 'prefixRules'] as const) {
    const entries = change[list]
    if (Array.isArray(entries)) entries.forEach((sim: SimReference, index) => references.push({ path: `${list}.${index}`, sim }))
  }
  if (!references.length) return []
  const ids = [...new Set(references.map(({ sim }) => Number(sim.deviceId)))]
  const slots = await devices.slotsOf(ids)

  const errors: FieldError[] = []
  for (const { path, sim } of references) {
    const paired = slots.get(Number(sim.deviceId))
    if (!paired) {
      errors.push({ field: `${path}.deviceId`, rule: 'exists', message: `No paired phone has id ${sim.deviceId}` })
    } else if (sim.simSlot !== null && sim.simSlot !== undefined && !paired.has(sim.simSlot)) {
      errors.push({ field: `${path}.simSlot`, rule: 'exists', message: `Phone ${sim.deviceId} has no SIM in slot ${sim.simSlot}` })
    }
  }
  return errors
}
