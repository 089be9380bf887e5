import db from '@adonisjs/lucid/services/db'
import type { TransactionClientContract } from '@adonisjs/lucid/types/database'

export interface NewPairingCode {
  codeHash: string
  createdAt: string
  expiresAt: string
  /** Who made it (an Activity log author), so the phone's pairing names them. */
  createdBy: string | null
  createdByName: string | null
  /** The kind of phone it pairs (`devices.kind`). */
  kind: string
}

/**
 * The `pairing_codes` table, in SQL text (docs/modules.md, Data access): a code is spent by the
 * one statement that checks it, which only SQL's `UPDATE … RETURNING` says in one statement.
 */
export class PairingCodeStore {
  async addCode(code: NewPairingCode): Promise<void> {
    await db.rawQuery(
      'INSERT INTO pairing_codes (code_hash, created_at, expires_at, created_by, created_by_name, kind) VALUES (?, ?, ?, ?, ?, ?)',
      [code.codeHash, code.createdAt, code.expiresAt, code.createdBy, code.createdByName, code.kind]
    )
  }

  /**
   * Spends an unused, unexpired code of this kind in the pairing's transaction, answering who
   * made it; null when no such code is left (unknown, expired, used, or of another kind).
   */
  async spendCode(
    trx: TransactionClientContract,
    spend: { codeHash: string; kind: string; at: string }
  ): Promise<{ createdBy: string | null; createdByName: string | null } | null> {
    const [spent] = await trx.rawQuery(
      `UPDATE pairing_codes SET used_at = ? WHERE code_hash = ? AND used_at IS NULL AND expires_at > ? AND kind = ?
       RETURNING created_by, created_by_name`,
      [spend.at, spend.codeHash, spend.at, spend.kind]
    )
    return spent ? { createdBy: spent.created_by, createdByName: spent.created_by_name } : null
  }
}
