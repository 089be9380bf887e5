import db from '@adonisjs/lucid/services/db'
import { isLicenseState, type LicenseState } from '#modules/license/services/license_state'

const TABLE = 'license_state'
const ROW_ID = 1

/** The persisted license row. Dates are ISO 8601 UTC text, like every date in the database. */
export interface StoredLicense {
  state: LicenseState
  keySealed: string | null
  keyPrefix: string | null
  lastCheckedAt: string | null
  lastAnswerAt: string | null
}

export const initialLicense: StoredLicense = {
  state: 'valid',
  keySealed: null,
  keyPrefix: null,
  lastCheckedAt: null,
  lastAnswerAt: null,
}

/** The `license_state` table's single row, through the query builder (docs/modules.md, Data access). */
export class LicenseStateStore {
  /** The stored license, or the initial one on a gateway that never stored any. */
  async read(): Promise<StoredLicense> {
    const row = await db.from(TABLE).where('id', ROW_ID).first()
    if (!row) return { ...initialLicense }
    return {
      // Only this code writes the column; anything else is treated as the initial state.
      state: isLicenseState(row.state) ? row.state : initialLicense.state,
      keySealed: row.key_sealed ?? null,
      keyPrefix: row.key_prefix ?? null,
      lastCheckedAt: row.last_checked_at ?? null,
      lastAnswerAt: row.last_answer_at ?? null,
    }
  }

  async write(license: StoredLicense, now: Date): Promise<void> {
    await db
      .insertQuery()
      .table(TABLE)
      .insert({
        id: ROW_ID,
        state: license.state,
        key_sealed: license.keySealed,
        key_prefix: license.keyPrefix,
        last_checked_at: license.lastCheckedAt,
        last_answer_at: license.lastAnswerAt,
        updated_at: now.toISOString(),
      })
      .knexQuery.onConflict('id')
      .merge()
  }
}
