import { onBeforeUnmount } from 'vue'
import { api, answer } from '../../api/client'
import { useLiveChannel } from '../../live/live'
import { useLoaded } from '../../components/use_loaded'

/** While the Overview is open, /health is asked again this often (a lock comes and goes unannounced). */
const HEALTH_POLL_MS = 15_000

/**
 * The gateway's own condition (GET /health): a full disk under the data folder or another
 * program holding the database. Read again at once when a storage notice arrives.
 */
export function useGatewayHealth() {
  const loaded = useLoaded(() => answer(api.GET('/health')))
  useLiveChannel('notices', (notice) => {
    if (notice.type.startsWith('storage.')) void loaded.reload()
  })
  const timer = window.setInterval(() => void loaded.reload(), HEALTH_POLL_MS)
  onBeforeUnmount(() => window.clearInterval(timer))
  return loaded
}
