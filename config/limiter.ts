import { configProvider } from '@adonisjs/core'
import { defineConfig } from '@adonisjs/limiter'
import type { InferLimiters } from '@adonisjs/limiter/types'
import { Clock } from '#core/time/clock'
import { ClockedMemoryStore } from '#core/http/clocked_memory_store'

/**
 * Brute-force throttles (sign-in, pairing): @adonisjs/limiter limiters in this process's
 * memory. Their store reads time from the gateway's Clock (taken once; tests point it at a
 * ManualClock and move time instead of sleeping) and keeps at most MAX_KEYS keys per limiter, so a
 * flood of distinct addresses cannot grow memory without bound (a few hundred bytes a key:
 * a few MB per limiter at most).
 */
const MAX_KEYS = 20_000

const limiterConfig = defineConfig({
  default: 'memory',
  stores: {
    memory: configProvider.create(async (app) => {
      const clock = await app.container.make(Clock)
      const now = async () => clock.nowMs()
      return (consumption) => new ClockedMemoryStore(consumption, { now, maxKeys: MAX_KEYS })
    }),
  },
})

export default limiterConfig

declare module '@adonisjs/limiter/types' {
  export interface LimitersList extends InferLimiters<typeof limiterConfig> {}
}
