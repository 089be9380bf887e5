import { inject } from '@adonisjs/core'
import { createHash, randomInt } from 'node:crypto'
import db from '@adonisjs/lucid/services/db'
import QRCode from 'qrcode'
import { Clock } from '#core/time/clock'
import { Secrets } from '#core/secrets/secrets'
import { ApiError } from '#core/http/api_error'
import { ActivityLog, type ActivityAuthor } from '#core/activity/activity_log'
import { dateTimeOf } from '#core/database/utc_date_time'
import Device from '#modules/devices/models/device'
import { newDeviceCredential } from '#modules/devices/services/device_credentials'
import type { PairingCodeAnswer } from '#modules/devices/schemas'
import { transaction } from '#core/database/transaction'
import type { TransactionClientContract } from '@adonisjs/lucid/types/database'
import { pairingApps } from '#modules/devices/services/pairing_apps'

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
    private activity: ActivityLog
  ) {}

  /**
   * A new code for a kind of phone (`agent` unless said), with what a QR code should carry and
   * that QR code as SVG: our agent reads {gateway, code}; for an app with an API URL of its own
   * to type, the answer adds it and the QR code carries it.
   */
  async createCode(gatewayUrl: string, appName = 'agent'): Promise<PairingCodeAnswer> {
    const app = pairingApps.get(appName)
    if (!app) throw ApiError.validation('app', 'enum', 'Unknown app')
    const alphabet = app.digitsOnly ? DIGITS : CODE_ALPHABET
    let code = ''
    for (let index = 0; index < CODE_LENGTH; index++) code += alphabet[randomInt(alphabet.length)]
    const now = this.clock.nowMs()
    const expiresAt = new Date(now + PAIRING_CODE_TTL_MS).toISOString()
    const author = this.activity.author
    await db.table('pairing_codes').insert({
      code_hash: hashCode(code),
      created_at: new Date(now).toISOString(),
      expires_at: expiresAt,
      created_by: author?.actor ?? null,
      created_by_name: author?.name ?? null,
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
      const [spent] = await trx.rawQuery(
        `UPDATE pairing_codes SET used_at = ? WHERE code_hash = ? AND used_at IS NULL AND expires_at > ? AND kind = ?
         RETURNING created_by, created_by_name`,
        [now.toISOString(), hashCode(request.code), now.toISOString(), kind]
      )
      if (!spent) throw new ApiError('INVALID_PAIRING_CODE', 'The pairing code is unknown, expired or already used')
      const at = dateTimeOf(now)
      const device = await Device.create(
        {
          name: request.name,
          kind,
          model: request.model ?? null,
          appVersion: request.appVersion ?? null,
          credentialSealed: 'pending',
          enabled: true,
          status: 'offline',
          lastSeenAt: null,
          batteryLevel: null,
          batteryCharging: null,
          signal: null,
          textOptions: {},
          createdAt: at,
          updatedAt: at,
        },
        { client: trx }
      )
      const { credential, secret } = newDeviceCredential(device.id)
      device.credentialSealed = this.secrets.seal(secret)
      await device.useTransaction(trx).save()
      if (request.sims.length) {
        await trx.table('device_sims').multiInsert(
          request.sims.map((sim) => ({
            device_id: device.id,
            slot: sim.slot,
            label: sim.label ?? null,
            operator: sim.operator ?? null,
            number: sim.number ?? null,
            daily_quota: null,
            sent_today: 0,
            sent_day: null,
          }))
        )
      }
      const author: ActivityAuthor | null = spent.created_by ? { actor: spent.created_by, name: spent.created_by_name } : null
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
