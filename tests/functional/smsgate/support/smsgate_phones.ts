import type { ApiClient } from '@japa/api-client'
import type { Group } from '@japa/runner/core'
import emitter from '@adonisjs/core/services/emitter'
import type { EventsList } from '@adonisjs/core/types'
import { useManualClock } from '#tests/helpers/clock'
import { clearDevices } from '#tests/helpers/devices'
import { clearMessaging } from '#tests/helpers/messages'
import { useTestKeys } from '#tests/helpers/callers'
import type { ManualClock } from '#core/time/clock'
import type { JobRunner } from '#core/jobs/job_runner'
import type { PhoneChannels } from '#modules/devices/public'
import { testKeys } from '#tests/helpers/callers'
import { settle, useDeviceJobs } from '#tests/helpers/phones'
import { FakeSmsgateApp } from '#tests/functional/smsgate/support/fake_smsgate_app'
import { parseAppMessageId } from '#modules/smsgate/channel/app_protocol'

type AppCopy = FakeSmsgateApp['messages'] extends Map<string, infer Copy> ? Copy : never

/**
 * The app's copies of a gateway message, oldest first: the app knows each hand-out of it by
 * another id (docs/smsgate.md, Orders).
 */
export function copiesOf(app: FakeSmsgateApp, messageId: string): AppCopy[] {
  return [...app.messages.values()].filter((copy) => String(parseAppMessageId(copy.id)?.messageId) === messageId)
}

/** The gateway message an id the app knows names. */
export function messageIdOf(appId: string): string {
  return String(parseAppMessageId(appId)?.messageId)
}

/** A pairing code for the SMSGate app, and the API URL the operator types in the app. */
export async function smsgateCode(client: ApiClient): Promise<{ code: string; apiUrl: string }> {
  const response = await client.post('/api/v1/devices/pairing-codes').header('x-api-key', testKeys.admin).json({ app: 'smsgate' })
  response.assertStatus(201)
  return response.body()
}

/** A fake SMSGate app paired by code, with its SIM reported; connected to its event stream unless told. */
export async function pairedApp(client: ApiClient, options: { connect?: boolean } = {}): Promise<FakeSmsgateApp> {
  const { code, apiUrl } = await smsgateCode(client)
  const app = new FakeSmsgateApp(apiUrl)
  const registered = await app.register(code)
  if (registered.status !== 201) throw new Error(`POST /device answered ${registered.status}: ${registered.text}`)
  const patched = await app.patchDevice()
  if (patched.status !== 204) throw new Error(`PATCH /device answered ${patched.status}: ${patched.text}`)
  if (options.connect !== false) await app.connect()
  return app
}

/** Lets the gateway, its jobs and the fake apps finish what is in flight. */
export async function settleWith(clock: ManualClock, runner: JobRunner, hub: PhoneChannels, apps: FakeSmsgateApp[]) {
  for (let round = 0; round < 3; round++) {
    await settle(clock, runner, hub, [])
    await Promise.all(apps.map((app) => app.idle()))
  }
  await settle(clock, runner, hub, [])
}

/**
 * What every SMSGate test group runs on: clean messages and phones, the real jobs on a
 * ManualClock, the public events named faked, and the fake apps it pairs let go after each test.
 */
export function useSmsgateGateway(group: Group, fakedEvents: Array<keyof EventsList>) {
  const world = {
    clock: null as unknown as ManualClock,
    jobs: null as unknown as Awaited<ReturnType<typeof useDeviceJobs>>,
    events: null as unknown as ReturnType<typeof emitter.fake>,
    apps: [] as FakeSmsgateApp[],
    /** Lets the gateway, its jobs and this test's apps finish what is in flight. */
    flush: () => settleWith(world.clock, world.jobs.runner, world.jobs.hub, world.apps),
  }
  group.setup(() => useTestKeys())
  group.each.setup(async () => {
    await clearMessaging()
    await clearDevices()
    const manual = useManualClock(new Date())
    world.clock = manual.clock
    world.jobs = await useDeviceJobs(manual.clock)
    world.apps = []
    world.events = emitter.fake(fakedEvents)
    return async () => {
      for (const phone of world.apps) phone.disconnect()
      await world.jobs.hub.settled()
      emitter.restore()
      await world.jobs.stop()
      manual.restore()
    }
  })
  return world
}
