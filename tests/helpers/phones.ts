import app from '@adonisjs/core/services/app'
import db from '@adonisjs/lucid/services/db'
import logger from '@adonisjs/core/services/logger'
import type { ApiClient } from '@japa/api-client'
import { JobRunner } from '#core/jobs/job_runner'
import type { ManualClock } from '#core/time/clock'
import { PhoneChannels } from '#modules/devices/channels/phone_channels'
import { PhonePresence } from '#modules/devices/services/phone_presence'
import { OrderBook } from '#modules/devices/services/order_book'
import { livenessJob } from '#modules/devices/jobs/liveness_job'
import { DeviceStore } from '#modules/devices/stores/device_store'
import { dispatchJobs } from '#modules/messages/messages_provider'
import { PhoneAgent } from '../../agent/src/phone_agent.js'
import { SimulatorDriver, type SimulatorOptions } from '../../agent/src/drivers/simulator.js'
import { pairingCode } from '#tests/helpers/devices'

/**
 * The background jobs that move messages to phones (the messages module's dispatcher, the
 * devices module's liveness) on a runner driven by a test's ManualClock, put in the container
 * so the modules wake this one.
 */
export async function useDeviceJobs(clock: ManualClock, shared?: JobRunner) {
  if (!shared) await db.from('scheduled_jobs').delete()
  // With `shared`, the jobs join a runner another helper made and swapped in (the webhook engine's).
  const runner = shared ?? new JobRunner(clock, db, logger)
  for (const job of dispatchJobs(app.container)) runner.register(job)
  // Every kind of phone (the agent's socket, and any a test registers): `hub.settled()` waits for all.
  const hub = await app.container.make(PhoneChannels)
  runner.register(
    livenessJob({
      phones: async () => hub,
      presence: () => app.container.make(PhonePresence),
      orderBook: () => app.container.make(OrderBook),
      devices: () => app.container.make(DeviceStore),
    })
  )
  if (!shared) {
    app.container.swap(JobRunner, () => runner)
    await runner.start()
  }
  return {
    runner,
    hub,
    async stop() {
      if (shared) return
      await runner.stop()
      app.container.restore(JobRunner)
    },
  }
}

/** Pairs a simulated phone through the API and connects its agent. */
export async function simulatedPhone(client: ApiClient, options: SimulatorOptions & { name?: string } = {}) {
  const driver = new SimulatorDriver(options)
  const code = await pairingCode(client)
  const paired = await PhoneAgent.pair(process.env.GATEWAY_PUBLIC_URL!, code, { name: options.name ?? 'Simulated phone', sims: driver.sims() })
  const agent = new PhoneAgent({ gatewayUrl: process.env.GATEWAY_PUBLIC_URL!, credential: paired.credential, driver })
  await agent.connect()
  return { agent, driver, deviceId: paired.device.id, credential: paired.credential }
}

/**
 * Lets everything in flight finish: the gateway's frame handling, its jobs, the phones. Frames
 * on the wire between two rounds are not observable, so several rounds with a short real pause
 * give them time to land even on a busy machine.
 */
export async function settle(clock: ManualClock, runner: JobRunner, hub: Pick<PhoneChannels, 'settled'>, agents: PhoneAgent[]) {
  for (let round = 0; round < 8; round++) {
    await clock.advance(0)
    await runner.whenIdle()
    await hub.settled()
    await Promise.all(agents.map((agent) => agent.idle()))
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

/** Waits for a condition with a deadline, for what happens on a real socket. */
export async function eventually(condition: () => boolean | Promise<boolean>, timeoutMs = 5000) {
  const deadline = Date.now() + timeoutMs
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time')
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}
