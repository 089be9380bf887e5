import { shallowRef } from 'vue'
import { api, answer } from '../../api/client'
import type { components } from '../../api/schema'
import { useLiveChannel, type LivePayload } from '../../live/live'
import { useLoaded } from '../../components/use_loaded'
import { useCursorList } from '../../components/use_cursor_list'

export type BackupFile = components['schemas']['BackupFile']
export type BackupAttempt = components['schemas']['BackupAttempt']

/** What the gateway broadcasts on `backups` (app/modules/backups/listeners/live_backups.ts). */
export type BackupStep = LivePayload<'backups'>

/**
 * Everything the Backups page shows, read again when an attempt finishes (scheduled or made
 * here) or a restore is prepared or cancelled: the files, the attempts, the pending restore and
 * the schedule. `current` is the attempt under way, step by step, from the live channel.
 */
export function useBackups() {
  const files = useLoaded(async () => (await answer(api.GET('/api/v1/backups'))).data)
  const attempts = useCursorList((cursor) => answer(api.GET('/api/v1/backups/attempts', { params: { query: { cursor, limit: 20 } } })))
  const restore = useLoaded(() => answer(api.GET('/api/v1/backups/restore')))
  const schedule = useLoaded(() => answer(api.GET('/api/v1/backups/schedule')))
  const current = shallowRef<BackupStep | null>(null)

  const readAll = () => Promise.all([files.reload(), attempts.reload(), restore.reload(), schedule.reload()])
  void attempts.reload()

  useLiveChannel(
    'backups',
    (step) => {
      current.value = step
      if (step.step === 'finished') void readAll()
    },
    () => void readAll()
  )

  return { files, attempts, restore, schedule, current, readAll }
}

/** "Back up now": the attempt (201) or the failure (503 with the reason in its message). */
export async function backUpNow() {
  return answer(api.POST('/api/v1/backups'))
}

export async function prepareRestore(name: string) {
  return answer(api.POST('/api/v1/backups/{name}/restore', { params: { path: { name } } }))
}

export async function cancelRestore() {
  return answer(api.DELETE('/api/v1/backups/restore'))
}

export const downloadUrl = (name: string) => `/api/v1/backups/${encodeURIComponent(name)}/download`

/** 1536 → "1.5 KB": sizes an operator reads at a glance. */
export function readableSize(bytes: number | null | undefined): string {
  if (bytes === null || bytes === undefined) return '—'
  const units = ['bytes', 'KB', 'MB', 'GB', 'TB']
  let value = bytes
  let unit = 0
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024
    unit++
  }
  return unit === 0 ? `${value} bytes` : `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`
}

export const stepWords: Record<BackupStep['step'], string> = {
  copying: 'Copying the database…',
  verifying: 'Reading the copy back to check it…',
  saving: 'Writing it to disk…',
  finished: 'Finished',
}

export const isRunning = (step: BackupStep | null) => !!step && step.step !== 'finished'
