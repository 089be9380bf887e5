import type { ApiClient } from '@japa/api-client'
import type { ManualClock } from '#core/time/clock'
import type { JobRunner } from '#core/jobs/job_runner'
import type { PhoneChannels } from '#modules/devices/public'
import { testKeys } from '#tests/helpers/callers'
import { settle } from '#tests/helpers/phones'
import { FakeSmsgateApp } from '#tests/functional/smsgate/support/fake_smsgate_app'

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
