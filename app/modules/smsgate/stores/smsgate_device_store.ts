import db from '@adonisjs/lucid/services/db'
import type { TransactionClientContract } from '@adonisjs/lucid/types/database'

const TABLE = 'smsgate_devices'

/** A phone's SMSGate row as it is written at pairing (docs/smsgate.md). */
export interface NewSmsgateDevice {
  deviceId: number
  tokenSha256: string
  login: string
  passwordSha256: string
  pushTokenSet: boolean
  webhookPathSealed: string
  signingKeySealed: string
  simCards: string
  at: string
}

/**
 * The `smsgate_devices` table (the app's side of a paired phone): the query builder, one
 * statement per method. The row goes with its device (a foreign key that cascades).
 */
export class SmsgateDeviceStore {
  /** Written in the pairing's transaction: the device and its app credential, both or neither. */
  async add(trx: TransactionClientContract, row: NewSmsgateDevice): Promise<void> {
    await trx.table(TABLE).insert({
      device_id: row.deviceId,
      token_sha256: row.tokenSha256,
      login: row.login,
      password_sha256: row.passwordSha256,
      push_token_set: row.pushTokenSet ? 1 : 0,
      webhook_path_sealed: row.webhookPathSealed,
      signing_key_sealed: row.signingKeySealed,
      sim_cards: row.simCards,
      created_at: row.at,
      updated_at: row.at,
    })
  }

  /** The device whose token has this fingerprint. */
  async deviceOfToken(tokenSha256: string): Promise<number | null> {
    const row = await db.from(TABLE).where('token_sha256', tokenSha256).select('device_id').first()
    return row ? Number(row.device_id) : null
  }

  /** The device with this login, and its password's fingerprint. */
  async byLogin(login: string): Promise<{ deviceId: number; passwordSha256: string } | null> {
    const row = await db.from(TABLE).where('login', login).select('device_id', 'password_sha256').first()
    return row ? { deviceId: Number(row.device_id), passwordSha256: row.password_sha256 } : null
  }

  async passwordOf(deviceId: number): Promise<string | null> {
    const row = await db.from(TABLE).where('device_id', deviceId).select('password_sha256').first()
    return row?.password_sha256 ?? null
  }

  /** Its SIMs as last reported (JSON), and whether it gave a Firebase push token. */
  async reported(deviceId: number): Promise<{ simCards: string; pushTokenSet: boolean } | null> {
    const row = await db.from(TABLE).where('device_id', deviceId).select('sim_cards', 'push_token_set').first()
    return row ? { simCards: row.sim_cards, pushTokenSet: Boolean(row.push_token_set) } : null
  }

  /** Its sealed webhook path secret and signing key. */
  async secretsOf(deviceId: number): Promise<{ webhookPathSealed: string; signingKeySealed: string } | null> {
    const row = await db.from(TABLE).where('device_id', deviceId).select('webhook_path_sealed', 'signing_key_sealed').first()
    return row ? { webhookPathSealed: row.webhook_path_sealed, signingKeySealed: row.signing_key_sealed } : null
  }

  async change(deviceId: number, change: { passwordSha256?: string; pushTokenSet?: boolean; simCards?: string; at: string }): Promise<void> {
    const columns: Record<string, unknown> = { updated_at: change.at }
    if (change.passwordSha256 !== undefined) columns.password_sha256 = change.passwordSha256
    if (change.pushTokenSet !== undefined) columns.push_token_set = change.pushTokenSet ? 1 : 0
    if (change.simCards !== undefined) columns.sim_cards = change.simCards
    await db.from(TABLE).where('device_id', deviceId).update(columns)
  }
}
