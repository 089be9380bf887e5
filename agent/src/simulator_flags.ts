import type { SimulatorOptions } from './drivers/simulator.js'

/**
 * The simulator's settings as command-line flags, shared by the agent bin and
 * `node ace phone:simulate` so both take the same names, help and checks.
 */
export const SIMULATOR_FLAGS = {
  'sims': 'Simulated SIMs, 1 or 2 (default 1)',
  'latency': 'Milliseconds each send takes, 0 to 60000 (default 200)',
  'failure-rate': 'Share of sends that fail, 0 to 1 (default 0)',
  'delivery-rate': 'Share of sent SMS that get a delivery receipt, 0 to 1 (default 1)',
  'inbound-every': 'Seconds between generated inbound SMS, 0 for none (default 0)',
} as const

export type SimulatorFlagValues = Partial<Record<keyof typeof SIMULATOR_FLAGS, string>>

export interface SimulatorSettings extends Omit<SimulatorOptions, 'sims' | 'latencyMs' | 'failureRate' | 'deliveryRate'>, Required<Pick<SimulatorOptions, 'sims' | 'latencyMs' | 'failureRate' | 'deliveryRate'>> {
  /** An inbound SMS every so many ms (0: none). */
  inboundEveryMs: number
}

/** Reads and checks the flags (strings as typed); throws one clear line for a bad value. */
export function simulatorSettings(values: SimulatorFlagValues): SimulatorSettings {
  const number = (flag: keyof typeof SIMULATOR_FLAGS, fallback: number, min: number, max: number, whole = false) => {
    const raw = values[flag]
    if (raw === undefined) return fallback
    const value = raw.trim() === '' ? Number.NaN : Number(raw)
    if (!Number.isFinite(value) || value < min || value > max || (whole && !Number.isInteger(value))) {
      throw new Error(`--${flag} must be ${whole ? 'a whole number' : 'a number'} from ${min} to ${max} (got "${raw}")`)
    }
    return value
  }
  // A phone has at most two SIMs, slots 0 and 1: the gateway refuses more at pairing.
  const sims = number('sims', 1, 1, 2, true)
  return {
    sims: Array.from({ length: sims }, (_, slot) => ({ slot, label: `SIM ${slot + 1}`, operator: 'Simulated' })),
    latencyMs: number('latency', 200, 0, 60_000, true),
    failureRate: number('failure-rate', 0, 0, 1),
    deliveryRate: number('delivery-rate', 1, 0, 1),
    inboundEveryMs: number('inbound-every', 0, 0, 86_400) * 1000,
  }
}
