import type { JsonOf } from '#core/contract/typed_schema'
import { WEBHOOK_EVENTS } from '#modules/smsgate/channel/app_protocol'

/**
 * The gateway's answers to the SMSGate app (docs/smsgate.md), in the app's own JSON: each is the
 * type of the function that builds it, so a field dropped or added fails the type check.
 */

const simCardsSchema = {
  type: 'array',
  description: 'The SIMs as the app reported them (numbers and names masked to their last 4 characters)',
  items: {
    type: 'object',
    required: ['slotIndex'],
    properties: {
      slotIndex: { type: 'integer' },
      simNumber: { type: 'integer' },
      phoneNumber: { type: 'string' },
      carrierName: { type: 'string' },
      iccid: { type: 'string' },
    },
  },
} as const
export type AppSimCard = JsonOf<typeof simCardsSchema>[number]

export const registeredSchema = {
  type: 'object',
  required: ['id', 'token', 'login', 'password'],
  properties: { id: { type: 'string' }, token: { type: 'string' }, login: { type: 'string' }, password: { type: 'string' } },
} as const
export type Registered = JsonOf<typeof registeredSchema>

export const appDeviceSchema = {
  type: 'object',
  required: ['id', 'name', 'createdAt', 'updatedAt', 'lastSeen', 'simCards'],
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    createdAt: { type: 'string', format: 'date-time' },
    updatedAt: { type: 'string', format: 'date-time' },
    lastSeen: { type: 'string', format: 'date-time' },
    simCards: simCardsSchema,
  },
} as const
export type AppDevice = JsonOf<typeof appDeviceSchema>

export const deviceAnswerSchema = {
  type: 'object',
  required: ['externalIp'],
  properties: { externalIp: { type: 'string' }, device: appDeviceSchema },
} as const
export type DeviceAnswer = JsonOf<typeof deviceAnswerSchema>

export const appMessageSchema = {
  type: 'object',
  required: ['id', 'message', 'textMessage', 'phoneNumbers', 'simNumber', 'withDeliveryReport', 'state', 'createdAt'],
  properties: {
    id: { type: 'string', description: "The order's id: the message id and its hand-out, `<message id>-<when it was handed, base-36 ms>`" },
    message: { type: 'string' },
    textMessage: { type: 'object', required: ['text'], properties: { text: { type: 'string' } } },
    phoneNumbers: { type: 'array', items: { type: 'string' } },
    simNumber: { type: 'integer', description: 'Our SIM slot + 1' },
    withDeliveryReport: { type: 'boolean' },
    state: { enum: ['Pending'] },
    createdAt: { type: 'string', format: 'date-time' },
  },
} as const
export type AppMessage = JsonOf<typeof appMessageSchema>

export const appWebhookSchema = {
  type: 'object',
  required: ['id', 'url', 'event'],
  properties: { id: { type: 'string' }, url: { type: 'string', format: 'uri' }, event: { enum: WEBHOOK_EVENTS } },
} as const
export type AppWebhook = JsonOf<typeof appWebhookSchema>

export const appSettingsSchema = {
  type: 'object',
  required: ['gateway', 'ping'],
  properties: {
    gateway: { type: 'object', required: ['notification_channel'], properties: { notification_channel: { enum: ['SSE_ONLY'] } } },
    webhooks: { type: 'object', required: ['signing_key'], properties: { signing_key: { type: 'string' } } },
    ping: { type: 'object', required: ['interval_seconds'], properties: { interval_seconds: { type: 'integer' } } },
  },
} as const
export type AppSettings = JsonOf<typeof appSettingsSchema>

export const loginCodeSchema = {
  type: 'object',
  required: ['code', 'validUntil'],
  properties: { code: { type: 'string' }, validUntil: { type: 'string', format: 'date-time' } },
} as const
export type LoginCode = JsonOf<typeof loginCodeSchema>
