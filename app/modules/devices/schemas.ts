import type { RouteRegistry } from '#core/contract/route_registry'
import type { JsonSchema } from '#core/contract/route_contract'
import type { JsonOf } from '#core/contract/typed_schema'
import { isoDateTimeSchema } from '#core/contract/schemas'

const nullableOption = (what: string) => ({ type: ['boolean', 'null'], description: `${what}; null: as Settings > General says` }) as const

/** The Device resource; `Device.toResource` (models/device.ts) answers it. */
export const deviceSchema = {
  type: 'object',
  description: 'A paired phone (docs/device-protocol.md)',
  required: ['id', 'kind', 'name', 'model', 'appVersion', 'enabled', 'status', 'lastSeenAt', 'battery', 'signal', 'sims', 'textOptions', 'createdAt'],
  properties: {
    id: { type: 'string', description: 'The device identifier (messages name it in deviceId)' },
    kind: {
      type: 'string',
      description:
        'How the phone talks to the gateway, as it was paired: agent (our phone agent, docs/device-protocol.md) or smsgate (the SMSGate Android app, docs/smsgate.md)',
    },
    name: { type: 'string', description: 'The name given at pairing, changed with PATCH; shown in the dashboard, up to 80 characters' },
    model: { type: ['string', 'null'], description: 'The phone model the agent reported at pairing; null: not reported' },
    appVersion: { type: ['string', 'null'], description: "The agent's version, from pairing or its latest hello frame (40 characters at most); null: never reported" },
    enabled: { type: 'boolean', description: 'false: the phone gets no new orders (it stays paired and connected, and its inbound SMS are still stored)' },
    status: {
      enum: ['online', 'offline'],
      description: 'online: connected and heard from in the last 5 minutes; offline: its socket closed or it has been silent for 5 minutes',
    },
    lastSeenAt: {
      type: ['string', 'null'],
      format: 'date-time',
      description: "The phone's last frame, to within 30 s (it is written at most every 30 s while frames keep coming); null: never connected",
    },
    battery: {
      description: 'The last battery the phone reported; null: never reported',
      oneOf: [
        { type: 'null' },
        {
          type: 'object',
          required: ['level', 'charging'],
          properties: {
            level: { type: 'integer', minimum: 0, maximum: 100, description: 'Percent; at 15 or below device.low_battery is emitted once per crossing' },
            charging: { type: 'boolean', description: 'Plugged in' },
          },
        },
      ],
    },
    signal: { type: ['integer', 'null'], description: 'Signal strength, 0 (none) to 4 (full), as last reported; null: never reported' },
    sims: {
      type: 'array',
      description: 'The SIMs the phone paired with (one or two), by slot',
      items: {
        type: 'object',
        required: ['slot', 'label', 'operator', 'number', 'dailyQuota', 'sentToday'],
        properties: {
          slot: { enum: [0, 1], description: 'The SIM slot: 0 is the dashboard’s SIM 1, 1 its SIM 2 (simSlot in sends)' },
          label: { type: ['string', 'null'], description: 'A name for the SIM (e.g. Pro), up to 40 characters; null: none' },
          operator: { type: ['string', 'null'], description: 'The mobile operator the phone reported; null: unknown' },
          number: {
            type: ['string', 'null'],
            description: "The SIM's own number in E.164, when known: automatic replies are never sent to it; null: unknown",
          },
          dailyQuota: {
            type: ['integer', 'null'],
            description: 'SMS this SIM may send per day (platform time zone); past it, messages wait as pending_quota_exceeded. null: no quota',
          },
          sentToday: { type: 'integer', description: 'SMS handed to this SIM since midnight in the platform time zone (what the quota counts; one moved off the phone before it was sent is taken back)' },
        },
      },
    },
    textOptions: {
      type: 'object',
      description: 'Per-phone text options, applied when a message leaves through this phone; a null or absent option follows Settings > General',
      properties: {
        stripDiacritics: nullableOption('Replace accented letters with plain ones (é → e) so more texts fit GSM-7'),
        trimWhitespace: nullableOption('Collapse runs of spaces and blank lines, and trim the ends'),
        uppercase: nullableOption('Send the text in capitals'),
      },
    },
    createdAt: { ...isoDateTimeSchema, description: 'When the phone was paired' },
  },
} as const
export type DeviceResource = JsonOf<typeof deviceSchema>

/** A new pairing code; `Pairing.createCode` answers it. */
export const pairingCodeSchema = {
  type: 'object',
  required: ['code', 'expiresAt', 'qr'],
  properties: {
    code: { type: 'string', description: 'Letters and digits for our agent; 8 digits for the SMSGate app' },
    expiresAt: isoDateTimeSchema,
    qr: { type: 'object', required: ['text', 'svg'], properties: { text: { type: 'string' }, svg: { type: 'string' } } },
    apiUrl: {
      type: 'string',
      description: 'SMSGate app only: the API URL to type in the app (Settings > Cloud server), `{GATEWAY_PUBLIC_URL}/api/mobile/v1`',
    },
  },
} as const
export type PairingCodeAnswer = JsonOf<typeof pairingCodeSchema>

/** A phone just paired (`POST /api/v1/devices/pair`): the device and its credential, shown this once. */
export function pairedDeviceSchema<const D extends JsonSchema>(device: D) {
  return { type: 'object', required: ['device', 'credential'], properties: { device, credential: { type: 'string' } } } as const
}
export type PairedDevice = JsonOf<ReturnType<typeof pairedDeviceSchema<typeof deviceSchema>>>

/** The module's answers as published in the OpenAPI document. */
export function deviceSchemas(registry: RouteRegistry) {
  return { device: registry.addSchema('Device', deviceSchema), pairingCode: pairingCodeSchema }
}
