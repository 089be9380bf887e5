import { inject } from '@adonisjs/core'
import type { TransactionClientContract } from '@adonisjs/lucid/types/database'
import emitter from '@adonisjs/core/services/emitter'
import { transaction } from '#core/database/transaction'
import { ApiError } from '#core/http/api_error'
import { Pairing } from '#modules/devices/services/pairing'
import { PairingAttempts } from '#modules/devices/services/pairing_attempts'
import { DeviceStore } from '#modules/devices/stores/device_store'

/** A store holds no state: a plain function makes its own (docs/modules.md, Data access). */
const devices = new DeviceStore()

/** A SIM as another kind of phone reports it: its slot (0 or 1) and its operator, if known. */
export interface ReportedSim {
  slot: number
  operator?: string | null
}

/**
 * What a channel module needs to pair its own kind of phone (docs/phone-channels.md, a channel
 * of its own): spend a pairing code made for that kind, throttled per address like
 * `POST /api/v1/devices/pair`, and get the new device's id. The device's credential of our
 * agent is made and never shown: the channel keeps its own credential, so the agent's socket
 * cannot take the device.
 */
@inject()
export class PhonePairing {
  constructor(
    private pairing: Pairing,
    private attempts: PairingAttempts
  ) {}

  /**
   * Pairs a device of `kind` with `code`, coming from `ip`. Refuses with INVALID_PAIRING_CODE
   * (unknown, expired, used, or made for another kind) or PAIRING_THROTTLED. `alongside` writes
   * the channel's own row (its credential) in the pairing's transaction: both or neither.
   */
  async pair(
    input: { kind: string; code: string; name: string; model?: string; appVersion?: string; sims: ReportedSim[] },
    ip: string,
    alongside?: (trx: TransactionClientContract, deviceId: number) => Promise<void>
  ): Promise<{ deviceId: number }> {
    await this.attempts.take(ip)
    try {
      const sims = input.sims.map((sim) => ({ slot: sim.slot, operator: sim.operator ?? undefined }))
      const { device } = await this.pairing.pair({ code: input.code, name: input.name, model: input.model, appVersion: input.appVersion, sims }, input.kind, alongside)
      await this.attempts.giveBack(ip)
      return { deviceId: device.id }
    } catch (error) {
      if (!(error instanceof ApiError && error.code === 'INVALID_PAIRING_CODE')) await this.attempts.giveBack(ip)
      throw error
    }
  }

  /**
   * A pairing code for `kind`, asked by a paired phone whose own credentials `proven` checks (the
   * SMSGate app's "add another device"). Wrong credentials count as wrong pairing codes from that
   * address (PAIRING_THROTTLED after 5), and answer null.
   */
  async codeForPhone(kind: string, gatewayUrl: string, ip: string, proven: () => Promise<boolean>): Promise<{ code: string; expiresAt: string } | null> {
    await this.attempts.take(ip)
    let right = false
    try {
      right = await proven()
    } finally {
      if (right) await this.attempts.giveBack(ip)
    }
    if (!right) return null
    const { code, expiresAt } = await this.pairing.createCode(gatewayUrl, kind, null)
    return { code, expiresAt }
  }
}

/**
 * A phone's SIMs as it reports them after pairing. A reported slot is added or its operator
 * updated (its label, quota and counts stay); a slot no longer reported is removed. A phone that
 * reports none keeps the ones it has: it may only lack the permission to read them.
 */
export async function replaceSims(deviceId: number, sims: ReportedSim[]): Promise<void> {
  const reported = sims.filter((sim) => sim.slot === 0 || sim.slot === 1)
  if (!reported.length) return
  await transaction((trx) =>
    devices.replaceSims(
      trx,
      deviceId,
      reported.map((sim) => ({ slot: sim.slot, operator: sim.operator?.slice(0, 60) ?? null }))
    )
  )
  // A SIM may have appeared: what waited for one may leave now.
  await emitter.emit('devices:available', { deviceId })
}
