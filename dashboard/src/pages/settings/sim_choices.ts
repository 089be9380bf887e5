import type { Device } from '../devices/use_devices'

export type SimSlot = 0 | 1

export function phoneName(devices: Device[], deviceId: string): string {
  return devices.find((device) => device.id === deviceId)?.name ?? `phone #${deviceId} (not paired)`
}

/** The SIM as an operator knows it: numbered from 1 like a phone's settings, with its label. */
export function simName(devices: Device[], deviceId: string, slot: SimSlot | null | undefined): string {
  if (slot === null || slot === undefined) return 'any SIM'
  const sim = devices.find((device) => device.id === deviceId)?.sims.find((candidate) => candidate.slot === slot)
  return `SIM ${slot + 1}${sim?.label ? ` (${sim.label})` : ''}`
}

/** The slots a phone paired with; both when the phone is not known (any longer). */
export function slotsOf(devices: Device[], deviceId: string): SimSlot[] {
  const sims = devices.find((device) => device.id === deviceId)?.sims
  return sims?.length ? sims.map((sim) => sim.slot) : [0, 1]
}
