import type { Broadcastable } from '@boringnode/transmit/types'
import type { BackupProgress } from '#modules/backups/services/backup_engine'

/** The Transmit channel of backup attempts, open to superadmin dashboards only (backups hold accounts). */
export const BACKUPS_CHANNEL = 'backups'

export interface LiveBackupStep {
  type: 'backup.progress'
  /** copying, verifying, saving, then finished (with its outcome). */
  step: BackupProgress['step']
  name: string
  origin: BackupProgress['origin']
  outcome: 'success' | 'failed' | null
  at: string
}

type Transmit = {
  broadcast(channel: string, payload?: Broadcastable): void
  authorize(channel: string, callback: (ctx: { auth?: unknown }) => boolean | Promise<boolean>): void
}

/**
 * The steps of each backup attempt, scheduled or manual, as they happen: the Backups page shows
 * the progress and lists the new file or the failure without polling. The file's name and the
 * step only; the page reads sizes and reasons from the API.
 */
export function backupProgressBroadcaster(transmit: () => Promise<Transmit>, now: () => Promise<Date>) {
  return (progress: BackupProgress) => {
    void (async () => {
      const payload: LiveBackupStep = {
        type: 'backup.progress',
        step: progress.step,
        name: progress.name,
        origin: progress.origin,
        outcome: progress.step === 'finished' ? progress.outcome : null,
        at: (await now()).toISOString(),
      }
      ;(await transmit()).broadcast(BACKUPS_CHANNEL, payload as unknown as Broadcastable)
    })().catch(() => {
      // A dashboard missing a step reads the attempts again on its next visit; the backup goes on.
    })
  }
}

/** Only a signed-in superadmin may subscribe, like every /backups endpoint (docs/live-channels.md, `backups`). */
export async function restrictBackupsChannel(transmit: Transmit) {
  transmit.authorize(BACKUPS_CHANNEL, async (ctx) => {
    const auth = ctx.auth as { use(guard: 'web'): { user?: { role?: string } } } | undefined
    return auth?.use('web').user?.role === 'superadmin'
  })
}
