import vine from '@vinejs/vine'

/**
 * The bodies the SMSGate app sends (docs/smsgate-app-protocol.md, §2). Fields the app may add
 * in a later version are let through rather than refused: a refusal would make it retry
 * forever. The SIMs' strings come masked by the app.
 */
const simCard = vine
  .object({
    slotIndex: vine.number({ strict: true }).withoutDecimals().range([0, 7]),
    simNumber: vine.number({ strict: true }).withoutDecimals().optional(),
    phoneNumber: vine.string().maxLength(128).optional(),
    carrierName: vine.string().maxLength(128).optional(),
    iccid: vine.string().maxLength(128).optional(),
  })
  .allowUnknownProperties()

export const registerDeviceValidator = vine.compile(
  vine
    .object({
      name: vine.string().maxLength(128).optional(),
      pushToken: vine.string().maxLength(256).optional(),
      simCards: vine.array(simCard).maxLength(8).optional(),
    })
    .allowUnknownProperties()
)

export const patchDeviceValidator = vine.compile(
  vine
    .object({
      id: vine.string().maxLength(64),
      pushToken: vine.string().maxLength(256).optional(),
      simCards: vine.array(simCard).maxLength(8).optional(),
    })
    .allowUnknownProperties()
)

export const messagesQueryValidator = vine.compile(vine.object({ order: vine.enum(['lifo', 'fifo']).optional() }).allowUnknownProperties())

/** The app itself refuses a new password under 14 characters. */
export const changePasswordValidator = vine.compile(
  vine
    .object({
      currentPassword: vine.string().minLength(1).maxLength(256),
      newPassword: vine.string().minLength(14).maxLength(256),
    })
    .allowUnknownProperties()
)

/** A state the app does not know yet is taken and ignored, not refused. */
export const patchMessagesValidator = vine.compile(
  vine
    .array(
      vine
        .object({
          id: vine.string().minLength(1).maxLength(36),
          state: vine.string().maxLength(20),
          recipients: vine
            .array(
              vine
                .object({ phoneNumber: vine.string().minLength(1).maxLength(128), state: vine.string().maxLength(20), error: vine.string().maxLength(500).optional() })
                .allowUnknownProperties()
            )
            .minLength(1)
            .maxLength(100),
          states: vine.record(vine.string().maxLength(40)).optional(),
        })
        .allowUnknownProperties()
    )
    .minLength(1)
    .maxLength(100)
)

/**
 * A webhook the app posts (docs/smsgate-app-protocol.md, §4.1): the envelope, checked once the
 * signature is; the payload is read by event (an `sms:received` one below). Fields a later
 * version adds are let through.
 */
export const webhookEnvelopeValidator = vine.compile(
  vine
    .object({
      id: vine.string().maxLength(64).optional(),
      webhookId: vine.string().maxLength(64).optional(),
      event: vine.string().maxLength(40),
      deviceId: vine.string().maxLength(64).optional(),
      payload: vine.object({}).allowUnknownProperties(),
    })
    .allowUnknownProperties()
)

export const receivedSmsValidator = vine.compile(
  vine
    .object({
      message: vine.string().maxLength(20_000),
      receivedAt: vine.string().maxLength(40).optional(),
      messageId: vine.string().maxLength(64).optional(),
      sender: vine.string().maxLength(128).optional(),
      recipient: vine.string().maxLength(128).optional(),
      phoneNumber: vine.string().maxLength(128).optional(),
      simNumber: vine.number({ strict: true }).withoutDecimals().range([1, 8]).optional(),
    })
    .allowUnknownProperties()
)
