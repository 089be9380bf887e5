import type { Caller } from '#core/http/access'
import { inject } from '@adonisjs/core'
import { createHash, randomInt } from 'node:crypto'
import QRCode from 'qrcode'
import { Clock } from '#core/time/clock'
import { Secrets } from '#core/secrets/secrets'
import { ApiError } from '#core/http/api_error'
import { ActivityLog, type ActivityAuthor } from '#core/activity/activity_log'
import { dateTimeOf } from '#core/database/utc_date_time'
import type Device from '#modules/devices/models/device'
import { newDeviceCredential } from '#modules/devices/services/device_credentials'
import type { PairingCodeAnswer } from '#modules/devices/schemas'
import { transaction } from '#core/database/transaction'
import type { TransactionClientContract } from '@adonisjs/lucid/types/database'
import { pairingApps } from '#modules/devices/services/pairing_apps'
import { DeviceStore } from '#modules/devices/stores/device_store'
import { PairingCodeStore } from '#modules/devices/stores/pairing_code_store'

/**
 * A pairing code is valid 10 minutes, single use (docs/device-protocol.md, Pairing): long enough
 * to scan it and type a name, too short to be worth guessing.
 */
export const PAIRING_CODE_TTL_MS = 10 * 60_000
/** Letters and digits nobody confuses when typing from a screen (no 0/O, 1/I/L). */
const CODE_ALPHABET = '23456789ABCDEFGHJKMNPQRSTUVWXYZ'
const DIGITS = '0123456789'
const CODE_LENGTH = 8

export interface NewDevice {
  code: string
  name: string
  model?: string
  appVersion?: string
  sims: Array<{ slot: number; label?: string; operator?: string; number?: string }>
}

function hashCode(code: string): string {
  return createHash('sha256').update(code.trim().toUpperCase()).digest('hex')
}

/** One-time pairing codes, and pairing a phone with one. */
@inject()
export class Pairing {
  constructor(
    private clock: Clock,
    private secrets: Secrets,
    private activity: ActivityLog,
    private codes: PairingCodeStore,
    private devices: DeviceStore
  ) {}

  /**
   * A new code for a kind of phone (`agent` unless said), with what a QR code should carry and
   * that QR code as SVG: our agent reads {gateway, code}; for an app with an API URL of its own
   * to type, the answer adds it and the QR code carries it. `by`: who asked (null: a paired
   * phone), kept with the code for the entry of the phone that pairs with it.
   */
  async createCode(gatewayUrl: string, appName: string, by: Caller | null): Promise<PairingCodeAnswer> {
    const app = pairingApps.get(appName)
    if (!app) throw ApiError.validation('app', 'enum', 'Unknown app')
    const alphabet = app.digitsOnly ? DIGITS : CODE_ALPHABET
    let code = ''
    for (let index = 0; index < CODE_LENGTH; index++) code += alphabet[randomInt(alphabet.length)]
    const now = this.clock.nowMs()
    const expiresAt = new Date(now + PAIRING_CODE_TTL_MS).toISOString()
    const author = this.activity.actingFor(by).author
    await this.codes.addCode({
      codeHash: hashCode(code),
      createdAt: new Date(now).toISOString(),
      expiresAt,
      createdBy: author?.actor ?? null,
      createdByName: author?.name ?? null,
      kind: app.name,
    })
    const apiUrl = app.apiUrl?.(gatewayUrl)
    const qrText = apiUrl ?? JSON.stringify({ gateway: gatewayUrl, code })
    const qr = { text: qrText, svg: await QRCode.toString(qrText, { type: 'svg', margin: 1 }) }
    return apiUrl ? { code, expiresAt, qr, apiUrl } : { code, expiresAt, qr }
  }

  /**
   * Exchanges a valid code for a device of `kind` and its credential (shown this once). A code
   * made for another kind of phone is refused like an unknown one, and not spent. `alongside`
   * writes a channel's own row of the device in the same transaction.
   */
  async pair(
    request: NewDevice,
    kind = 'agent',
    alongside?: (trx: TransactionClientContract, deviceId: number) => Promise<void>
  ): Promise<{ device: Device; credential: string }> {
    const now = this.clock.now()
    const result = await transaction(async (trx) => {
      // Single use: the code is spent by the same statement that checks it.
      const spent = await this.codes.spendCode(trx, { codeHash: hashCode(request.code), kind, at: now.toISOString() })
      if (!spent) throw new ApiError('INVALID_PAIRING_CODE', 'The pairing code is unknown, expired or already used')
      const device = await this.devices.addDevice(trx, { name: request.name, kind, model: request.model, appVersion: request.appVersion, at: dateTimeOf(now) })
      const { credential, secret } = newDeviceCredential(device.id)
      await this.devices.sealCredential(trx, device, this.secrets.seal(secret))
      await this.devices.addSims(trx, device.id, request.sims)
      const author: ActivityAuthor | null = spent.createdBy ? { actor: spent.createdBy, name: spent.createdByName } : null
      // The channel's own row (its credential) commits with the device, or neither does.
      if (alongside) await alongside(trx, device.id)
      return { device, credential, author }
    })
    // The phone pairs itself with the code: the entry names whoever made the code.
    await this.activity
      .actingAs(result.author)
      .info('devices', 'device.paired', `Phone "${result.device.name}" paired`, { deviceId: String(result.device.id) })
    return { device: result.device, credential: result.credential }
  }
}
