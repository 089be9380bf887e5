import { access } from '#core/http/access'
import { checkedByHandler, defineRoutes } from '#core/contract/route_contract'
import type { RouteRegistry } from '#core/contract/route_registry'
import { MOBILE_API_PATH, WEBHOOK_EVENTS } from '#modules/smsgate/channel/app_protocol'
import {
  appMessageSchema,
  appSettingsSchema,
  appWebhookSchema,
  deviceAnswerSchema,
  loginCodeSchema,
  registeredSchema,
} from '#modules/smsgate/schemas'
import {
  changePasswordValidator,
  messagesQueryValidator,
  patchDeviceValidator,
  patchMessagesValidator,
  registerDeviceValidator,
  webhookEnvelopeValidator,
} from '#modules/smsgate/validators/mobile_validators'

const MobileController = () => import('#modules/smsgate/controllers/mobile_controller')

const TAG = 'SMSGate app'
const BEARER = 'Authorization: Bearer <device token> (from POST /device); an unknown or revoked token answers 401.'

/**
 * The SMSGate Android app's private-server protocol (docs/smsgate.md), under the API URL the app
 * is given: `{GATEWAY_PUBLIC_URL}/api/mobile/v1`. No API key: a phone proves itself with its
 * pairing code once, then with its own token.
 */
export function smsgateRoutes(registry: RouteRegistry) {
  registry.describeTag(TAG, 'The SMSGate Android app as a phone (docs/smsgate.md): the calls it makes to its private server')
  const path = (tail: string) => `${MOBILE_API_PATH}${tail}`

  return defineRoutes([
    {
      method: 'POST',
      path: path('/device'),
      operationId: 'smsgateRegisterDevice',
      summary: 'Pair the SMSGate app with a pairing code',
      description:
        'Authorization: Code <code>, a code made with POST /api/v1/devices/pairing-codes and {"app": "smsgate"} (single use, ' +
        '10 minutes; wrong codes are throttled per address). No code, or a wrong one: 401 and nothing is made.',
      tag: TAG,
      access: access.public(),
      body: registerDeviceValidator,
      answer: {
        status: 201,
        description: 'The device id, its token (shown this once; the gateway keeps a fingerprint) and the login and password the app shows',
        schema: registeredSchema,
      },
      errors: ['SMSGATE_UNAUTHORIZED', 'PAIRING_THROTTLED'],
      handler: [MobileController, 'register'],
    },
    {
      method: 'GET',
      path: path('/device'),
      operationId: 'smsgateGetDevice',
      summary: "The caller's public address, and its device when the token is valid",
      description: 'The app reads externalIp only. Without a token, or with an unknown one, only externalIp is answered.',
      tag: TAG,
      access: access.public(),
      answer: {
        status: 200,
        description: 'The address the gateway sees, and the device',
        schema: deviceAnswerSchema,
      },
      handler: [MobileController, 'show'],
    },
    {
      method: 'PATCH',
      path: path('/device'),
      operationId: 'smsgateUpdateDevice',
      summary: 'The app reports its SIMs and push token',
      description: `${BEARER} The SIMs it reports replace the phone's (none reported: kept). A push token means the phone uses Firebase and will not open the event stream: the log says so.`,
      tag: TAG,
      access: access.public(),
      body: patchDeviceValidator,
      answer: { status: 204, description: 'Taken' },
      errors: ['SMSGATE_UNAUTHORIZED', 'SMSGATE_OTHER_DEVICE'],
      handler: [MobileController, 'update'],
    },
    {
      method: 'GET',
      path: path('/message'),
      operationId: 'smsgateListMessages',
      summary: 'The orders the phone has not reported yet',
      description: `${BEARER} order=lifo (the app's default) lists the newest first, fifo the oldest first. An order stays listed until the phone reports it.`,
      tag: TAG,
      access: access.public(),
      query: messagesQueryValidator,
      answer: {
        status: 200,
        description: "The orders, in the app's message format",
        schema: { type: 'array', items: appMessageSchema },
      },
      errors: ['SMSGATE_UNAUTHORIZED'],
      handler: [MobileController, 'messages'],
    },
    {
      method: 'PATCH',
      path: path('/message'),
      operationId: 'smsgateReportMessages',
      summary: 'The phone reports the state of its messages',
      description:
        `${BEARER} Processed or Pending: accepted; Sent: sent; Delivered: delivered; Failed: failed, with a short code made from the ` +
        "app's reason. Each once, whatever the order or repetition. Answered once stored; an unknown id is ignored.",
      tag: TAG,
      access: access.public(),
      body: patchMessagesValidator,
      answer: { status: 204, description: 'Stored' },
      errors: ['SMSGATE_UNAUTHORIZED'],
      handler: [MobileController, 'report'],
    },
    {
      method: 'GET',
      path: path('/webhooks'),
      operationId: 'smsgateListWebhooks',
      summary: 'The webhooks the app should call: its own URL, for received SMS',
      description:
        `${BEARER} One webhook per event the gateway takes (${WEBHOOK_EVENTS.join(', ')}), each posting to the phone's own URL ` +
        '(POST /api/mobile/v1/webhooks/{device}/{secret}); the id is stable for the device and event.',
      tag: TAG,
      access: access.public(),
      answer: {
        status: 200,
        description: 'The webhooks',
        schema: { type: 'array', items: appWebhookSchema },
      },
      errors: ['SMSGATE_UNAUTHORIZED'],
      handler: [MobileController, 'webhooks'],
    },
    {
      method: 'POST',
      path: path('/webhooks/:device/:secret'),
      operationId: 'smsgateWebhook',
      summary: 'A webhook the app posts: a received SMS',
      description:
        "The phone's own URL, as GET /webhooks gave it. Signed: X-Signature is the lower-case hex HMAC-SHA256, keyed with the device's " +
        'signing key (GET /settings), of the raw body bytes followed by X-Timestamp (Unix seconds), which must be within 5 minutes of ' +
        "the gateway's clock. An unknown URL answers 404; an unsigned, stale or wrongly signed call 401; nothing is stored then (the app " +
        'tries again, up to its retry count, 15 by default). sms:received is stored once per SMS (a repeat answers 204 too); ' +
        "system:ping updates the phone's battery; sms:data-received and mms:received are logged without their content; another " +
        'event is taken and ignored.',
      tag: TAG,
      access: access.public(),
      rawBody: true,
      params: { device: 'The device id', secret: "The device's webhook path secret" },
      headers: {
        'X-Signature': { description: 'Lower-case hex HMAC-SHA256 of the raw body followed by X-Timestamp', schema: { type: 'string' } },
        'X-Timestamp': { description: 'Unix time in seconds', schema: { type: 'string' } },
      },
      body: checkedByHandler(webhookEnvelopeValidator),
      answer: { status: 204, description: 'Stored (or acknowledged)' },
      errors: ['NOT_FOUND', 'SMSGATE_WEBHOOK_UNSIGNED', 'SMSGATE_WEBHOOK_STALE', 'SMSGATE_WEBHOOK_SIGNATURE'],
      handler: [MobileController, 'hook'],
    },
    {
      method: 'GET',
      path: path('/settings'),
      operationId: 'smsgateGetSettings',
      summary: "The app's settings the gateway sets",
      description: `${BEARER} The event stream rather than Firebase, the key the app signs its webhooks with, and its ping interval (its pings carry its battery).`,
      tag: TAG,
      access: access.public(),
      answer: {
        status: 200,
        description: 'Settings by section, each an object',
        schema: appSettingsSchema,
      },
      errors: ['SMSGATE_UNAUTHORIZED'],
      handler: [MobileController, 'settings'],
    },
    {
      method: 'GET',
      path: path('/user/code'),
      operationId: 'smsgateLoginCode',
      summary: 'A pairing code for another SMSGate phone, asked by a paired one',
      description:
        "Authorization: Basic <login:password>, as a paired phone's app shows them. Answers a pairing code for the SMSGate app " +
        '(digits only, single use, valid until validUntil, 10 minutes), to type in another phone\'s "By code" field. Wrong ' +
        'credentials answer 401 and count as wrong pairing codes from that address (429 after 5 in 10 minutes).',
      tag: TAG,
      access: access.public(),
      answer: {
        status: 200,
        description: 'The code and until when it pairs',
        schema: loginCodeSchema,
      },
      errors: ['SMSGATE_UNAUTHORIZED', 'PAIRING_THROTTLED'],
      handler: [MobileController, 'loginCode'],
    },
    {
      method: 'PATCH',
      path: path('/user/password'),
      operationId: 'smsgateChangePassword',
      summary: 'Change the password the app shows',
      description: `${BEARER} The current password must be right (401 otherwise); the new one has 14 characters at least (400 otherwise).`,
      tag: TAG,
      access: access.public(),
      body: changePasswordValidator,
      answer: { status: 204, description: 'Changed' },
      errors: ['SMSGATE_UNAUTHORIZED'],
      handler: [MobileController, 'changePassword'],
    },
    {
      method: 'GET',
      path: path('/events'),
      operationId: 'smsgateEvents',
      summary: "The phone's event stream (Server-Sent Events)",
      description:
        `${BEARER} Each event is an event: line and a data: line (MessageEnqueued: fetch GET /message); a :keepalive comment every 15 s. ` +
        'The phone is online while a stream is open.',
      tag: TAG,
      access: access.public(),
      answer: { status: 200, description: 'The stream, open until either side closes it', contentType: 'text/event-stream', schema: { type: 'string' } },
      errors: ['SMSGATE_UNAUTHORIZED', 'SMSGATE_STOPPING'],
      handler: [MobileController, 'events'],
    },
  ])
}

export type SmsgateRoutes = ReturnType<typeof smsgateRoutes>
