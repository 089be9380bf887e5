import { access } from '#core/http/access'
import { devicePermissions } from '#modules/devices/permissions'
import { defineRoutes } from '#core/contract/route_contract'
import { pageOf } from '#core/contract/schemas'
import type { RouteRegistry } from '#core/contract/route_registry'
import { pairValidator, pairingCodeValidator, updateDeviceValidator } from '#modules/devices/validators/device_validators'
import { pageQueryValidator } from '#core/pagination/keyset_page'
import { deviceSchemas, pairedDeviceSchema } from '#modules/devices/schemas'

const PairingController = () => import('#modules/devices/controllers/pairing_controller')
const DevicesController = () => import('#modules/devices/controllers/devices_controller')

/** Pairing phones and managing them. */
export function deviceRoutes(registry: RouteRegistry) {
  registry.describeTag('Devices', 'Paired phones: pairing codes, pairing, status, SIM quotas, unpairing')
  const { device, pairingCode } = deviceSchemas(registry)

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
        schema: pairingCode,
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
        schema: pairedDeviceSchema(device),
      },
      errors: ['INVALID_PAIRING_CODE', 'PAIRING_THROTTLED'],
      handler: [PairingController, 'pair'],
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

/** The module's contracts as typed, for its handlers' input (`routeInputs<DeviceRoutes>()`). */
export type DeviceRoutes = ReturnType<typeof deviceRoutes>
