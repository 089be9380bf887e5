import { api, answer } from '../../api/client'
import { useLiveChannel } from '../../live/live'
import { useLoaded } from '../../components/use_loaded'

/**
 * The automatic backup schedule and the last attempt (superadmin only), read again when a
 * backup.failed notice arrives on the live stream.
 */
export function useBackupStatus() {
  const loaded = useLoaded(async () => {
    const [schedule, attempts] = await Promise.all([
      answer(api.GET('/api/v1/backups/schedule')),
      answer(api.GET('/api/v1/backups/attempts', { params: { query: { limit: 1 } } })),
    ])
    return { schedule, lastAttempt: attempts.data[0] ?? null }
  })
  useLiveChannel('notices', (notice) => {
    if (notice.type.startsWith('backup.')) void loaded.reload()
  })
  return loaded
}
