import { test } from '@japa/runner'
import { readFile, readdir } from 'node:fs/promises'
import { join, relative } from 'node:path'
import app from '@adonisjs/core/services/app'
import { Ajv } from 'ajv'
import addFormats from 'ajv-formats'
import { liveChannel, liveChannelSchemas, type LiveTransmit } from '#core/live/live_channels'
import { LiveNotices } from '#core/notifications/live_notices'
import { broadcastDeviceEvents } from '#modules/devices/listeners/live_devices'
import { broadcastMessageChanges, LIVE_ENTRIES } from '#modules/messages/listeners/live_messages'
import { broadcastDeliveryChanges } from '#modules/webhooks/listeners/live_webhooks'
import { backupProgressBroadcaster } from '#modules/backups/listeners/live_backups'
import { LiveImports } from '#modules/contact_imports/listeners/live_imports'
import { LiveCampaigns } from '#modules/campaigns/listeners/live_campaigns'
import { CampaignBook } from '#modules/campaigns/services/campaign_book'
import type { ContactImports } from '#modules/contact_imports/services/contact_imports'
import type { Clock } from '#core/time/clock'
import { RouteRegistry } from '#core/contract/route_registry'
import { buildOpenApiDocument } from '#core/contract/openapi_document'
import { openApiInfo } from '#core/system/api_docs_controller'

/** What the broadcasters sent, as a Transmit service would have received it. */
function recorder() {
  const sent: { channel: string; payload: unknown }[] = []
  const transmit: LiveTransmit & { authorize(): void } = { broadcast: (channel, payload) => void sent.push({ channel, payload }), authorize() {} }
  return { sent, transmit: async () => transmit }
}

/** An emitter whose listeners the test calls itself. */
function emitter() {
  const listeners = new Map<string, (event: any) => unknown>()
  return {
    on: (name: string, listener: (event: any) => unknown) => void listeners.set(name, listener),
    emit: async (name: string, event: unknown) => listeners.get(name)!(event),
  }
}

const now = async () => new Date('2026-05-01T09:12:00.000Z')

function validator() {
  const ajv = new Ajv({ allErrors: true, strict: false })
  addFormats.default(ajv)
  return (channel: string, payload: unknown) => {
    const declared = liveChannel(channel)
    if (!declared) return [`"${channel}" is not a declared live channel`]
    const validate = ajv.compile(declared.schema)
    return validate(payload) ? [] : (validate.errors ?? []).map((error) => `${channel} ${error.instancePath} ${error.message}`)
  }
}

async function sourceFiles(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { withFileTypes: true })
  const files = await Promise.all(entries.map((entry) => (entry.isDirectory() ? sourceFiles(join(folder, entry.name)) : [join(folder, entry.name)])))
  return files.flat().filter((file) => file.endsWith('.ts'))
}

function documentedChannels(doc: string): string[] {
  const section = doc.split('\n## Channels')[1].split('\n### ')[0]
  return [...section.matchAll(/^\| `([a-z_]+)` \|/gm)].map((match) => match[1])
}

test.group('Live channels: one schema per channel', () => {
  test('every channel is declared once, documented in docs/live-channels.md, and nothing broadcasts outside a declared channel', async ({ assert }) => {
    const declared = Object.keys(liveChannelSchemas())
    const documented = documentedChannels(await readFile(app.makePath('docs/live-channels.md'), 'utf8'))
    assert.sameMembers(declared, documented)
    assert.sameMembers(declared, ['notices', 'devices', 'messages', 'webhooks', 'campaigns', 'imports', 'backups'])

    // A broadcast goes through a channel's typed `broadcast` (`<x>Channel.broadcast(transmit, payload)`): only
    // the catalogue itself hands a payload to Transmit.
    const strays: string[] = []
    for (const file of await sourceFiles(app.makePath('app'))) {
      const path = relative(app.makePath(), file)
      if (path === join('app', 'core', 'live', 'live_channels.ts')) continue
      for (const line of (await readFile(file, 'utf8')).split('\n')) {
        if (/\.broadcast\(/.test(line) && !/\b[a-z]+Channel\.broadcast\(/.test(line)) strays.push(`${path}: ${line.trim()}`)
      }
    }
    assert.deepEqual(strays, [], 'broadcasts that bypass a declared channel')
  })

  test('each schema compiles and refuses a payload with a field it does not declare', ({ assert }) => {
    const check = validator()
    for (const name of Object.keys(liveChannelSchemas())) {
      assert.isNotEmpty(check(name, { type: 'x', unexpected: true }), name)
    }
  })

  test('the OpenAPI document publishes every channel\'s schema as x-live-channels, the one source of the dashboard\'s types', async ({ assert }) => {
    const document = buildOpenApiDocument(await app.container.make(RouteRegistry), openApiInfo) as Record<string, unknown>
    const published = document['x-live-channels'] as Record<string, unknown>
    assert.deepEqual(published, JSON.parse(JSON.stringify(liveChannelSchemas())))
    assert.sameMembers(Object.keys(published), ['notices', 'devices', 'messages', 'webhooks', 'campaigns', 'imports', 'backups'])
    const generator = await readFile(app.makePath('dashboard/scripts/generate_api.mjs'), 'utf8')
    assert.include(generator, "document['x-live-channels']")
    assert.notInclude(generator, 'defineLiveChannel(', 'the generator reads the document, not the declaring files')
  })

  test("the broadcasters' payloads match their channel's schema", async ({ assert }) => {
    const { sent, transmit } = recorder()

    await new LiveNotices(transmit).publish({ type: 'backup.failed', message: 'Backup x.db failed: disk full', at: '2026-05-01T09:12:00.000Z', details: { backup: 'x.db', reason: 'disk full' } })
    await new LiveNotices(transmit).publish({ type: 'storage.full', message: 'The data folder is full', at: '2026-05-01T09:12:00.000Z' })

    const devices = emitter()
    broadcastDeviceEvents(devices, transmit, now)
    await devices.emit('device.online', { deviceId: '3', at: new Date() })
    await devices.emit('device.offline', { deviceId: '3', at: '2026-05-01T09:12:00.000Z' })
    await devices.emit('devices:status_changed', { deviceId: 3 })
    await devices.emit('devices:unpaired', { deviceId: 3 })

    const messages = emitter()
    broadcastMessageChanges(messages, transmit, now)
    const change = (id: number) => ({ id, conversationId: 7, direction: 'out', status: 'queued', campaignId: null })
    await messages.emit('messages:changed', { changes: [change(1), { id: 2, conversationId: 7, direction: 'in', status: 'deleted' }] })
    await messages.emit('messages:changed', { changes: Array.from({ length: LIVE_ENTRIES + 1 }, (_, index) => change(index + 1)) })

    const webhooks = emitter()
    broadcastDeliveryChanges(webhooks, transmit, now)
    await webhooks.emit('webhooks:deliveries_recorded', { webhookIds: ['1'], count: 2 })
    await webhooks.emit('webhooks:deliveries_changed', { deliveryIds: [], webhookIds: ['1'] })
    await webhooks.emit('webhooks:changed', { webhookIds: ['1', '2'] })

    const backup = backupProgressBroadcaster(transmit, now)
    backup({ step: 'copying', name: 'gateway-20260501-030000.db', origin: 'manual' })
    backup({ step: 'finished', name: 'gateway-20260501-030000.db', origin: 'scheduled', outcome: 'failed' })

    const found = {
      id: '4', status: 'running', fileName: 'contacts.csv', encoding: 'utf-8', columns: ['phone', 'Name'], sample: [['+33612345678', 'Ann']],
      suggestedMapping: { phone: 'phone', firstName: 'Name' }, previews: null, mapping: { phone: 'phone', fields: { note: 'Name' } }, groupId: null,
      totalRows: 10, processedRows: 5, created: 4, updated: 1, merged: 0, invalid: 0, error: null,
      createdAt: '2026-05-01T09:10:00.000Z', startedAt: '2026-05-01T09:11:00.000Z', finishedAt: null,
    }
    const imports = { find: async () => found } as unknown as ContactImports
    await new LiveImports(transmit, async () => imports, now).progressed(4, true)

    const book = await app.container.make(CampaignBook)
    const campaign = await book.create({ name: 'Live schema probe', body: 'Hello' })
    try {
      const clock = { now: () => new Date(), setTimer: () => ({ cancel() {} }) } as unknown as Clock
      new LiveCampaigns(transmit, async () => book, async () => clock).changed(campaign.id, true)
      await new Promise<void>((resolve, reject) => {
        const started = Date.now()
        const poll = () => (sent.some((entry) => entry.channel === 'campaigns') ? resolve() : Date.now() - started > 5000 ? reject(new Error('no campaign broadcast')) : setTimeout(poll, 10))
        poll()
      })
    } finally {
      await campaign.delete()
    }
    await new Promise((resolve) => setTimeout(resolve, 10))

    assert.sameMembers([...new Set(sent.map((entry) => entry.channel))], Object.keys(liveChannelSchemas()), 'every channel was exercised')
    const check = validator()
    assert.deepEqual(sent.flatMap((entry) => check(entry.channel, entry.payload)), [])
    const progress = sent.find((entry) => entry.channel === 'imports')!.payload as Record<string, Record<string, unknown>>
    assert.notProperty(progress.import, 'sample')
    assert.notProperty(progress.import, 'previews')
  })
})
