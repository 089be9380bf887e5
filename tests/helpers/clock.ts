import app from '@adonisjs/core/services/app'
import { Clock, ManualClock } from '#core/time/clock'

/**
 * Swaps the container's clock for a ManualClock for the rest of a test group; services resolved
 * after the swap read time from it. Returns the clock and the function that restores the real one.
 */
export function useManualClock(start?: Date | string): { clock: ManualClock; restore: () => void } {
  const clock = new ManualClock(start)
  app.container.swap(Clock, () => clock)
  return { clock, restore: () => app.container.restore(Clock) }
}
