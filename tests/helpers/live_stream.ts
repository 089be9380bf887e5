import http from 'node:http'
import { randomUUID } from 'node:crypto'
import type { ApiClient } from '@japa/api-client'
import { Ajv, type ValidateFunction } from 'ajv'
import addFormats from 'ajv-formats'
import { liveChannel, type LiveSchema } from '#core/live/live_channels'
import type { BrowserSession } from '#tests/helpers/callers'
import { eventually } from '#tests/helpers/phones'

/** Transmit's keep-alive, on every stream whatever it follows: not a declared channel. */
const PING_CHANNEL = '$$transmit/ping'

// Strict: a schema keyword ajv does not know, or a type it cannot check, is an error too.
const ajv = new Ajv({ strict: true, allowUnionTypes: true, allErrors: true })
addFormats.default(ajv)
const validators = new Map<string, ValidateFunction>()

/**
 * Where a schema would let an undeclared field through: every object it describes must say what
 * else it takes (`additionalProperties`), false or a schema, so a payload that grew a field fails.
 */
function openObjects(schema: unknown, at: string): string[] {
  if (Array.isArray(schema)) return schema.flatMap((entry, index) => openObjects(entry, `${at}/${index}`))
  if (!schema || typeof schema !== 'object') return []
  const object = schema as Record<string, unknown>
  const open = object.type === 'object' && !('additionalProperties' in object) ? [at || '/'] : []
  return [...open, ...Object.entries(object).flatMap(([key, value]) => openObjects(value, `${at}/${key}`))]
}

function validatorOf(channel: string): ValidateFunction {
  let validate = validators.get(channel)
  if (validate) return validate
  const declared = liveChannel(channel)
  if (!declared) throw new Error(`a message on "${channel}", which no module declares (defineLiveChannel, docs/live-channels.md)`)
  const open = openObjects(declared.schema as LiveSchema, '')
  if (open.length > 0) throw new Error(`the schema of the live channel "${channel}" lets undeclared fields through at ${open.join(', ')}`)
  validate = ajv.compile(declared.schema)
  validators.set(channel, validate)
  return validate
}

/** What is wrong with one message received on the stream, against its channel's declared schema. */
function mismatches(channel: string, payload: unknown): string[] {
  if (channel === PING_CHANNEL) return []
  const validate = validatorOf(channel)
  if (validate(payload)) return []
  return (validate.errors ?? []).map((error) => `${channel}${error.instancePath || '/'} ${error.message} (${JSON.stringify(error.params)})`)
}

/**
 * A signed-in dashboard's Transmit stream, read as a browser's EventSource would, subscribed
 * to one channel. `events()` answers the payloads received so far on that channel.
 *
 * Every message the stream receives, on any channel, is checked against the schema its channel
 * declares (defineLiveChannel, app/core/live/live_channels.ts): a field the schema does not name,
 * a wrong type, a missing field or a message on an undeclared channel makes `events()` and
 * `close()` throw, so the test that received it fails.
 */
export async function openLiveStream(client: ApiClient, session: BrowserSession, channel: string) {
  const uid = randomUUID()
  let received = ''
  let status = 0
  const request = http.get(
    `${process.env.GATEWAY_PUBLIC_URL}/__transmit/events?uid=${uid}`,
    { headers: { cookie: session.cookie, accept: 'text/event-stream' } },
    (response) => {
      status = response.statusCode ?? 0
      response.on('data', (chunk) => (received += chunk))
    }
  )
  request.on('error', () => {})
  await eventually(() => status === 200)
  const subscribed = await client.post('/__transmit/subscribe').header('cookie', session.cookie).header('x-xsrf-token', session.xsrf).json({ uid, channel })
  subscribed.assertStatus(204)

  /** Every complete message so far, each checked against its channel's schema. */
  const messages = () => {
    // Only whole lines: a chunk may end in the middle of one.
    const lines = received.slice(0, received.lastIndexOf('\n') + 1).split('\n')
    const parsed = lines
      .filter((line) => line.startsWith('data:'))
      .map((line) => JSON.parse(line.replace(/^data:\s*/, '')) as { channel: string; payload: Record<string, unknown> })
    const wrong = parsed.flatMap((message) => mismatches(message.channel, message.payload).map((problem) => `${problem} in ${JSON.stringify(message.payload)}`))
    if (wrong.length > 0) throw new Error(`the live stream received payloads that do not match their channel's declared schema:\n${wrong.join('\n')}`)
    return parsed
  }
  return {
    events: () => messages().filter((event) => event.channel === channel).map((event) => event.payload),
    close: () => {
      request.destroy()
      messages()
    },
  }
}
