import { defineLiveChannel, type LivePayload, type LiveTransmit } from '#core/live/live_channels'
import type { Clock } from '#core/time/clock'
import type { BackupProgress } from '#modules/backups/services/backup_engine'

/** The channel of backup attempts, open to superadmin dashboards only (backups hold accounts; docs/live-channels.md, `backups`). */
export const backupsChannel = defineLiveChannel('backups', {
  type: 'object',
  required: ['type', 'step', 'name', 'origin', 'outcome', 'at'],
  additionalProperties: false,
  properties: {
    type: { const: 'backup.progress' },
    step: { enum: ['copying', 'verifying', 'saving', 'finished'], description: 'copying, verifying, saving, then finished (with its outcome)' },
    name: { type: 'string', description: "The backup file's name" },
    origin: { enum: ['scheduled', 'manual'] },
    outcome: { enum: ['success', 'failed', null], description: 'On `finished`; null on the other steps' },
    at: { type: 'string', format: 'date-time', description: 'When the step began' },
  },
} as const)

/** The channel's name. */
export const BACKUPS_CHANNEL = backupsChannel.name

export type LiveBackupStep = LivePayload<typeof backupsChannel>

type Transmit = LiveTransmit & {
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
      backupsChannel.broadcast(await transmit(), payload)
    })().catch(() => {
      // A dashboard missing a step reads the attempts again on its next visit; the backup goes on.
    })
  }
}

/**
 * The engine's way to the channel: told each step of an attempt as it starts, never waited for.
 * Its provider binds it with the transmit server resolved when used.
 */
export class BackupProgressChannel {
  readonly tell: (progress: BackupProgress) => void

  constructor(transmit: () => Promise<Transmit>, clock: Clock) {
    this.tell = backupProgressBroadcaster(transmit, async () => clock.now())
  }
}

/** Only a signed-in superadmin may subscribe, like every /backups endpoint (docs/live-channels.md, `backups`). */
export async function restrictBackupsChannel(transmit: Transmit) {
  transmit.authorize(BACKUPS_CHANNEL, async (ctx) => {
    const auth = ctx.auth as { use(guard: 'web'): { user?: { role?: string } } } | undefined
    return auth?.use('web').user?.role === 'superadmin'
  })
}
