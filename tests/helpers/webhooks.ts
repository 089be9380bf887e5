import http from 'node:http'
import type { AddressInfo } from 'node:net'
import app from '@adonisjs/core/services/app'
import db from '@adonisjs/lucid/services/db'
import logger from '@adonisjs/core/services/logger'
import type { ApiClient } from '@japa/api-client'
import { JobRunner } from '#core/jobs/job_runner'
import type { ManualClock } from '#core/time/clock'
import { Secrets } from '#core/secrets/secrets'
import { ActivityLog } from '#core/activity/activity_log'
import ipaddr from 'ipaddr.js'
import { DestinationPolicy, type DestinationVerdict } from '#modules/webhooks/services/destination_policy'
import { DeliveryClient } from '#modules/webhooks/services/delivery_client'
import { WebhookSubscriptions } from '#modules/webhooks/services/webhook_subscriptions'
import { DeliveryRecorder } from '#modules/webhooks/services/delivery_recorder'
import { DeliveryWorker } from '#modules/webhooks/services/delivery_worker'
import { DELIVERY_JOB, DeliveryWake, deliveryJob } from '#modules/webhooks/jobs/delivery_job'
import { DeliveryStore } from '#modules/webhooks/stores/delivery_store'
import { WebhookStore } from '#modules/webhooks/stores/webhook_store'
import { testKeys } from '#tests/helpers/callers'

/**
 * The real policy that also admits the machine itself: the tests' receivers listen on loopback.
 * One test suite runs the real policy and proves loopback is refused.
 */
export class LoopbackAllowingPolicy extends DestinationPolicy {
  judgeAddress(text: string): DestinationVerdict {
    return isLoopback(text) ? { allowed: true } : super.judgeAddress(text)
  }

  judgeHost(hostname: string): DestinationVerdict | 'resolve' {
    return isLoopback(hostname) ? { allowed: true } : super.judgeHost(hostname)
  }
}

function isLoopback(text: string): boolean {
  const host = text.replace(/^\[|\]$/g, '')
  return ipaddr.isValid(host) && ipaddr.process(host).range() === 'loopback'
}

export async function clearWebhooks() {
  await db.from('webhook_deliveries').delete()
  await db.from('webhooks').delete()
  ;(await app.container.make(WebhookSubscriptions)).invalidate()
}

/**
 * The delivery engine on a runner driven by a test's ManualClock, put in the container so the
 * API and the event listener use it. By default its policy admits loopback receivers (the
 * test's own); `policy` gives the real one.
 */
export async function useWebhookEngine(clock: ManualClock, options: { policy?: DestinationPolicy; resolve?: ConstructorParameters<typeof DeliveryClient>[2] } = {}) {
  await db.from('scheduled_jobs').delete()
  const runner = new JobRunner(clock, db, logger)
  const policy = options.policy ?? new LoopbackAllowingPolicy({ allowPrivateNetworks: true })
  const subscriptions = await app.container.make(WebhookSubscriptions)
  const client = new DeliveryClient(policy, clock, options.resolve)
  // Built from their constructor parameters, as the provider builds them, on the test's clock,
  // client and runner.
  const wake = new DeliveryWake(async () => runner)
  const deliveryStore = new DeliveryStore()
  const recorder = new DeliveryRecorder(clock, subscriptions, logger, wake, deliveryStore)
  const worker = new DeliveryWorker(
    clock,
    await app.container.make(Secrets),
    client,
    await app.container.make(ActivityLog),
    subscriptions,
    logger,
    wake,
    deliveryStore,
    new WebhookStore()
  )
  runner.register(deliveryJob(async () => worker))
  app.container.swap(JobRunner, () => runner)
  app.container.swap(DestinationPolicy, () => policy)
  app.container.swap(DeliveryRecorder, () => recorder)
  app.container.swap(DeliveryWorker, () => worker)
  await runner.start()
  return {
    runner,
    worker,
    recorder,
    /** Lets recorded deliveries leave and every attempt due now record its outcome. */
    async settle() {
      for (let round = 0; round < 10_000; round++) {
        await recorder.flushed()
        await clock.advance(0)
        await runner.whenIdle()
        await worker.settled()
        const due = runner.dueAt(DELIVERY_JOB)
        if (!worker.inFlight && (due === null || due.getTime() > clock.nowMs())) return
      }
      throw new Error('deliveries never settled')
    },
    /**
     * Keeps the engine going without waiting for calls in flight (a receiver may never answer)
     * until `condition` holds, with a real-time deadline.
     */
    async until(condition: () => boolean, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs
      while (!condition()) {
        if (Date.now() > deadline) throw new Error('condition not met in time')
        await recorder.flushed()
        await clock.advance(0)
        await runner.whenIdle()
        await new Promise((resolve) => setTimeout(resolve, 5))
      }
    },
    /** Stops like a gateway that goes down: calls in flight abandoned, rows left as they are. */
    async stop() {
      await recorder.flushed()
      await runner.stop()
      await worker.stop()
      app.container.restore(JobRunner)
      app.container.restore(DestinationPolicy)
      app.container.restore(DeliveryRecorder)
      app.container.restore(DeliveryWorker)
    },
  }
}

export interface ReceivedCall {
  method: string
  url: string
  headers: http.IncomingHttpHeaders
  /** Header names in the order they came on the wire. */
  headerOrder: string[]
  rawBody: string
}

type Behaviour = (request: http.IncomingMessage, response: http.ServerResponse) => void

/** A real HTTP receiver on loopback: records every call and answers as told. */
export async function startReceiver(behaviour: Behaviour = (_request, response) => response.end('ok')) {
  const calls: ReceivedCall[] = []
  let answer = behaviour
  const sockets = new Set<import('node:net').Socket>()
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk) => chunks.push(chunk))
    request.on('end', () => {
      const headerOrder: string[] = []
      for (let index = 0; index < request.rawHeaders.length; index += 2) headerOrder.push(request.rawHeaders[index].toLowerCase())
      calls.push({ method: request.method!, url: request.url!, headers: request.headers, headerOrder, rawBody: Buffer.concat(chunks).toString('utf8') })
      answer(request, response)
    })
  })
  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    calls,
    url: `http://127.0.0.1:${port}/hook`,
    port,
    answerWith(next: Behaviour) {
      answer = next
    },
    async close() {
      for (const socket of sockets) socket.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>

export const answerStatus = (status: number, body = '') => (_request: http.IncomingMessage, response: http.ServerResponse) => {
  response.statusCode = status
  response.end(body)
}

/** Never answers: the attempt can only end by the gateway's time limit. */
export const neverAnswer: Behaviour = () => {}

export async function createWebhook(client: ApiClient, fields: Record<string, unknown>) {
  const response = await client.post('/api/v1/webhooks').header('x-api-key', testKeys.admin).json({ name: `Hook ${Math.random().toString(36).slice(2, 8)}`, ...fields })
  if (response.status() !== 201) throw new Error(`webhook not created: ${response.status()} ${JSON.stringify(response.body())}`)
  return response.body() as { webhook: { id: string } & Record<string, unknown>; secret: string }
}

export async function deliveries(client: ApiClient, query: Record<string, string> = {}) {
  const response = await client.get('/api/v1/webhooks/deliveries').qs(query).header('x-api-key', testKeys.read)
  return response.body().data as Array<Record<string, any>>
}
