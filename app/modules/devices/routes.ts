import { access } from '#core/http/access'
import { devicePermissions } from '#modules/devices/permissions'
import { defineRoutes } from '#core/contract/route_contract'
import { isoDateTimeSchema, pageOf } from '#core/contract/schemas'
import type { RouteRegistry } from '#core/contract/route_registry'
import { pairValidator, pairingCodeValidator, updateDeviceValidator } from '#modules/devices/validators/device_validators'
import { pageQueryValidator } from '#core/pagination/keyset_page'
import { DEVICE_SOCKET_PATH } from '#modules/devices/channels/agent_socket/agent_protocol'

const PairingController = () => import('#modules/devices/controllers/pairing_controller')
const DevicesController = () => import('#modules/devices/controllers/devices_controller')
const DeviceSocketController = () => import('#modules/devices/controllers/device_socket_controller')

/** Pairing phones and managing them. */
export function deviceRoutes(registry: RouteRegistry) {
  registry.describeTag('Devices', 'Paired phones: pairing codes, pairing, status, SIM quotas, unpairing')
  const nullableOption = (what: string) => ({ type: ['boolean', 'null'], description: `${what}; null: as Settings > General says` })
  const device = registry.addSchema('Device', {
    type: 'object',
    description: 'A paired phone (docs/device-protocol.md)',
    required: ['id', 'name', 'model', 'appVersion', 'enabled', 'status', 'lastSeenAt', 'battery', 'signal', 'sims', 'textOptions', 'createdAt'],
    properties: {
      id: { type: 'string', description: 'The device identifier (messages name it in deviceId)' },
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
  })

  return defineRoutes([
    {
      method: 'POST',
      path: '/api/v1/devices/pairing-codes',
      operationId: 'createPairingCode',
      summary: 'A one-time pairing code, valid 10 minutes, with its QR code',
      description:
        'For our agent by default. With `{"app": "smsgate"}` the code is for the SMSGate Android app (docs/smsgate.md): ' +
        '8 digits (its code field takes digits only), and the answer adds `apiUrl`, the API URL to type in the app. ' +
        'A code pairs only the kind of phone it was made for.',
      tag: 'Devices',
      access: devicePermissions['devices.pair'],
      body: pairingCodeValidator(),
      answer: {
        status: 201,
        description: 'The code (shown once) and the QR code data: for our agent JSON {gateway, code}, for the SMSGate app its API URL; also as SVG',
        schema: {
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
        },
      },
      handler: [PairingController, 'createCode'],
    },
    {
      method: 'POST',
      path: '/api/v1/devices/pair',
      operationId: 'pairDevice',
      summary: 'Pair a phone with a one-time code',
      description:
        'No API key: the code is the credential (single use; wrong codes are throttled per address). Answers the device ' +
        'and its credential, shown this once; the phone opens its WebSocket with it (docs/device-protocol.md).',
      tag: 'Devices',
      access: access.public(),
      body: pairValidator,
      answer: {
        status: 201,
        description: 'The device and its credential',
        schema: { type: 'object', required: ['device', 'credential'], properties: { device, credential: { type: 'string' } } },
      },
      errors: ['INVALID_PAIRING_CODE', 'PAIRING_THROTTLED'],
      handler: [PairingController, 'pair'],
    },
    {
      method: 'GET',
      path: DEVICE_SOCKET_PATH,
      operationId: 'openDeviceSocket',
      summary: "A phone's WebSocket (upgrade only)",
      description:
        'Phones connect here with a WebSocket upgrade and `Authorization: Bearer <device credential>` (from POST ' +
        '/api/v1/devices/pair); every frame, field and close code is in docs/device-protocol.md. An unknown or revoked ' +
        'credential is refused before the upgrade with 401 INVALID_DEVICE_CREDENTIAL (pair again); a 500 means the ' +
        'credential could not be checked (try again). A plain HTTP request, without the upgrade, is answered 426.',
      tag: 'Devices',
      access: access.public(),
      answer: { status: 101, description: 'Switching to the WebSocket protocol (upgrade requests only)' },
      errors: ['UPGRADE_REQUIRED', 'INVALID_DEVICE_CREDENTIAL'],
      handler: [DeviceSocketController, 'withoutUpgrade'],
    },
    {
      method: 'GET',
      path: '/api/v1/devices',
      operationId: 'listDevices',
      summary: 'Paired phones',
      tag: 'Devices',
      access: devicePermissions['devices.read'],
      query: pageQueryValidator,
      answer: { status: 200, description: 'A page of paired phones, newest first', schema: pageOf(device) },
      handler: [DevicesController, 'index'],
    },
    {
      method: 'GET',
      path: '/api/v1/devices/:id',
      operationId: 'getDevice',
      summary: 'One paired phone',
      tag: 'Devices',
      access: devicePermissions['devices.read'],
      params: { id: 'Device identifier' },
      answer: { status: 200, description: 'The device', schema: device },
      errors: ['NOT_FOUND'],
      handler: [DevicesController, 'show'],
    },
    {
      method: 'PATCH',
      path: '/api/v1/devices/:id',
      operationId: 'updateDevice',
      summary: 'Rename, enable or disable a phone, set SIM daily quotas and text options',
      tag: 'Devices',
      access: devicePermissions['devices.change'],
      body: updateDeviceValidator,
      params: { id: 'Device identifier' },
      answer: { status: 200, description: 'The device', schema: device },
      errors: ['NOT_FOUND'],
      handler: [DevicesController, 'update'],
    },
    {
      method: 'DELETE',
      path: '/api/v1/devices/:id',
      operationId: 'unpairDevice',
      summary: 'Unpair a phone: its credential stops working at once',
      tag: 'Devices',
      access: devicePermissions['devices.change'],
      params: { id: 'Device identifier' },
      answer: { status: 204, description: 'Unpaired' },
      errors: ['NOT_FOUND'],
      handler: [DevicesController, 'destroy'],
    },
  ])
}
