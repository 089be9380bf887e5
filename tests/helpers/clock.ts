import app from '@adonisjs/core/services/app'
import { Clock, GatewayClock, ManualClock } from '#core/time/clock'

/** The container's one clock (bound once by the core provider, taken once by every service). */
const bound = await app.container.make(Clock)
if (!(bound instanceof GatewayClock)) throw new Error("The container's Clock is not the GatewayClock")
const gatewayClock: GatewayClock = bound

/**
 * Points the gateway's clock at a new ManualClock until `restore()`: every service, whenever it
 * was resolved, reads time from it and arms its timers on it. Returns the clock and the function
 * that gives the gateway the system's time back.
 */
export function useManualClock(start?: Date | string): { clock: ManualClock; restore: () => void } {
  const clock = new ManualClock(start)
  gatewayClock.use(clock)
  return { clock, restore: () => gatewayClock.useSystemTime() }
}
