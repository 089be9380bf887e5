import { inject } from '@adonisjs/core'
import { createHash, randomBytes, randomInt, timingSafeEqual } from 'node:crypto'
import type { Logger } from '@adonisjs/core/logger'
import { Clock } from '#core/time/clock'
import { Secrets } from '#core/secrets/secrets'
import { ApiError } from '#core/http/api_error'
import { PhonePairing, phoneSummary, replaceSims, type ReportedSim } from '#modules/devices/public'
import { SmsgateDeviceStore } from '#modules/smsgate/stores/smsgate_device_store'
import type { AppDevice, AppSettings, AppSimCard, AppWebhook, LoginCode, Registered } from '#modules/smsgate/schemas'
import { MOBILE_API_PATH, PING_INTERVAL_S, WEBHOOK_EVENTS, webhookId } from '#modules/smsgate/channel/app_protocol'

const UPPER = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789'
const LOWER = 'abcdefghijkmnopqrstuvwxyz23456789'


const fingerprint = (secret: string) => createHash('sha256').update(secret).digest('hex')

/** Whether `secret` has this fingerprint, in constant time. */
function sameFingerprint(stored: string, secret: string): boolean {
  const given = Buffer.from(fingerprint(secret), 'hex')
  const kept = Buffer.from(stored, 'hex')
  return kept.length === given.length && timingSafeEqual(kept, given)
}

function randomText(alphabet: string, length: number): string {
  let text = ''
  for (let index = 0; index < length; index++) text += alphabet[randomInt(alphabet.length)]
  return text
}

/** The app's SIMs as ours: slot = slotIndex (0 or 1), operator = the carrier's (masked) name. */
function simsOf(cards: AppSimCard[]): ReportedSim[] {
  return cards.filter((card) => card.slotIndex === 0 || card.slotIndex === 1).map((card) => ({ slot: card.slotIndex, operator: card.carrierName ?? null }))
}

/**
 * The SMSGate app's phones (docs/smsgate.md): pairing one with a code, knowing it again by its
 * bearer token, what it says of itself (`PATCH /device`), and the settings it is given.
 */
@inject()
export class SmsgateDevices {
  constructor(
    private clock: Clock,
    private secrets: Secrets,
    private pairing: PhonePairing,
    private store: SmsgateDeviceStore
  ) {}

  /**
   * `POST /device` with `Authorization: Code <code>`: spends the code (made for the SMSGate app)
   * and answers what the app stores: the device id, its token, and the login and password it
   * shows. Without a code, or with a wrong one, nothing is made.
   */
  async register(
    code: string,
    input: { name?: string; pushToken?: string; simCards?: AppSimCard[]; appVersion?: string },
    ip: string,
    logger: Logger
  ): Promise<Registered> {
    const name = (input.name?.trim() || 'SMSGate phone').slice(0, 80)
    // Registration nearly always comes without SIMs (they follow with PATCH /device): slot 0
    // stands in, so the phone can take orders on its default SIM.
    const sims = simsOf(input.simCards ?? [])
    const token = randomBytes(24).toString('base64url')
    const login = randomText(UPPER, 6)
    const password = randomText(LOWER, 14)
    const now = this.clock.now().toISOString()
    let deviceId: number
    try {
      ;({ deviceId } = await this.pairing.pair(
        { kind: 'smsgate', code: code.trim(), name, model: input.name?.slice(0, 120), appVersion: input.appVersion, sims: sims.length ? sims : [{ slot: 0 }] },
        ip,
        // The app's credential is made with the device, in the same transaction.
        (trx, newDeviceId) =>
          this.store.add(trx, {
            deviceId: newDeviceId,
            tokenSha256: fingerprint(token),
            login,
            passwordSha256: fingerprint(password),
            pushTokenSet: Boolean(input.pushToken),
            webhookPathSealed: this.secrets.seal(randomBytes(24).toString('base64url')),
            signingKeySealed: this.secrets.seal(randomBytes(24).toString('base64url')),
            simCards: JSON.stringify(input.simCards ?? []),
            at: now,
          })
      ))
    } catch (error) {
      if (error instanceof ApiError && (error.code === 'INVALID_PAIRING_CODE' || error.code === 'VALIDATION_ERROR')) {
        throw new ApiError('SMSGATE_UNAUTHORIZED', 'The pairing code is unknown, expired or already used')
      }
      throw error
    }
    if (input.pushToken) this.#warnFirebase(deviceId, logger)
    return { id: String(deviceId), token, login, password }
  }

  /** The device a bearer token names; SMSGATE_UNAUTHORIZED for none, an unknown or a revoked one. */
  async authenticate(authorization: string | undefined): Promise<number> {
    const match = /^\s*Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')
    if (!match) throw new ApiError('SMSGATE_UNAUTHORIZED', 'Send the device token as Authorization: Bearer <token>')
    const deviceId = await this.store.deviceOfToken(fingerprint(match[1]))
    if (deviceId === null) throw new ApiError('SMSGATE_UNAUTHORIZED', 'The device token is unknown or revoked: pair the phone again')
    return deviceId
  }

  /**
   * `GET /user/code`: a pairing code for another SMSGate phone, asked with the login and
   * password a paired phone's app shows (`Authorization: Basic`). Wrong ones are throttled per
   * address as wrong pairing codes are; the code is single use, 10 minutes.
   */
  async codeForAnotherPhone(authorization: string | undefined, gatewayUrl: string, ip: string, logger: Logger): Promise<LoginCode> {
    const basic = /^\s*Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(authorization ?? '')
    if (!basic) throw new ApiError('SMSGATE_UNAUTHORIZED', 'Send the login and password the app shows: Authorization: Basic')
    const decoded = Buffer.from(basic[1], 'base64').toString('utf8')
    const colon = decoded.indexOf(':')
    const [login, password] = colon < 0 ? [decoded, ''] : [decoded.slice(0, colon), decoded.slice(colon + 1)]
    let deviceId: number | null = null
    const answer = await this.pairing.codeForPhone('smsgate', gatewayUrl, ip, async () => {
      const found = login ? await this.store.byLogin(login) : null
      if (!found || !sameFingerprint(found.passwordSha256, password)) return false
      deviceId = found.deviceId
      return true
    })
    if (!answer) throw new ApiError('SMSGATE_UNAUTHORIZED', 'The login or password is wrong')
    logger.info({ deviceId }, 'smsgate: a paired phone made a pairing code for another phone')
    return { code: answer.code, validUntil: answer.expiresAt }
  }

  /**
   * `PATCH /user/password`: the password the app shows, changed when the current one is given
   * right (SMSGATE_UNAUTHORIZED otherwise). Kept as a fingerprint, as at pairing.
   */
  async changePassword(deviceId: number, input: { currentPassword: string; newPassword: string }) {
    const kept = await this.store.passwordOf(deviceId)
    if (kept === null || !sameFingerprint(kept, input.currentPassword)) throw new ApiError('SMSGATE_UNAUTHORIZED', 'The current password is wrong')
    await this.store.change(deviceId, { passwordSha256: fingerprint(input.newPassword), at: this.clock.now().toISOString() })
  }

  /** The device as `GET /device` shows it to its own app. */
  async describe(deviceId: number): Promise<AppDevice> {
    const [device, reported] = [await phoneSummary(deviceId), await this.store.reported(deviceId)]
    if (!device || !reported) throw new ApiError('SMSGATE_UNAUTHORIZED', 'The device token is unknown or revoked: pair the phone again')
    return {
      id: String(deviceId),
      name: device.name,
      createdAt: device.createdAt,
      updatedAt: device.updatedAt,
      lastSeen: device.lastSeenAt ?? device.createdAt,
      simCards: JSON.parse(reported.simCards) as AppSimCard[],
    }
  }

  /**
   * `PATCH /device`: the SIMs it reports now (when it reports any) and whether it uses Firebase
   * (a push token): such a phone never opens the event stream, so it is said in the log.
   */
  async update(deviceId: number, input: { id: string; pushToken?: string; simCards?: AppSimCard[] }, logger: Logger) {
    if (input.id !== String(deviceId)) throw new ApiError('SMSGATE_OTHER_DEVICE', "The body's id is not this token's device")
    const pushToken = Boolean(input.pushToken)
    const before = await this.store.reported(deviceId)
    await this.store.change(deviceId, {
      pushTokenSet: pushToken,
      simCards: input.simCards ? JSON.stringify(input.simCards) : undefined,
      at: this.clock.now().toISOString(),
    })
    if (input.simCards) await replaceSims(deviceId, simsOf(input.simCards))
    if (pushToken && !before?.pushTokenSet) this.#warnFirebase(deviceId, logger)
  }

  /**
   * What `GET /settings` gives the app: the event stream rather than Firebase (after the app's
   * restart), the key it signs its webhooks with, and its ping every 5 minutes (its battery).
   * Every section is an object; the server's address is never sent (a null one would move the
   * phone to the public cloud).
   */
  async settingsFor(deviceId: number): Promise<AppSettings> {
    const row = await this.store.secretsOf(deviceId)
    const key = row ? this.secrets.reveal(row.signingKeySealed) : { readable: false as const }
    return {
      gateway: { notification_channel: 'SSE_ONLY' },
      ...(key.readable ? { webhooks: { signing_key: key.value } } : {}),
      ping: { interval_seconds: PING_INTERVAL_S },
    }
  }

  /**
   * What `GET /webhooks` gives the app: one webhook per event the gateway takes, each posting to
   * the phone's own URL (its device id and path secret), `{gatewayUrl}/api/mobile/v1/webhooks/…`.
   */
  async webhooksFor(deviceId: number, gatewayUrl: string): Promise<AppWebhook[]> {
    const row = await this.store.secretsOf(deviceId)
    const secret = row ? this.secrets.reveal(row.webhookPathSealed) : null
    // A path secret the master key no longer opens: no webhook rather than one that is refused.
    if (!secret?.readable) return []
    const url = `${gatewayUrl}${MOBILE_API_PATH}/webhooks/${deviceId}/${secret.value}`
    return WEBHOOK_EVENTS.map((event) => ({ id: webhookId(secret.value, event), url, event }))
  }

  /**
   * The signing key of the device a webhook URL names, once its path secret matches; null for an
   * unknown device, a wrong secret, or secrets the master key no longer opens.
   */
  async webhookKey(device: string, pathSecret: string): Promise<{ deviceId: number; key: string } | null> {
    if (!/^[1-9]\d{0,15}$/.test(device)) return null
    const row = await this.store.secretsOf(Number(device))
    if (!row) return null
    const secret = this.secrets.reveal(row.webhookPathSealed)
    const key = this.secrets.reveal(row.signingKeySealed)
    if (!secret.readable || !key.readable) return null
    const same = timingSafeEqual(createHash('sha256').update(secret.value).digest(), createHash('sha256').update(pathSecret).digest())
    return same ? { deviceId: Number(device), key: key.value } : null
  }

  #warnFirebase(deviceId: number, logger: Logger) {
    logger.warn(
      { deviceId },
      'smsgate: the phone registered a Firebase push token, so it will not open the event stream; set its Notification channel to "SSE only"'
    )
  }
}
