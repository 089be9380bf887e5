import { computed, watch, type Ref } from 'vue'
import { api, answer } from '../../api/client'
import type { components } from '../../api/schema'
import { useLoaded } from '../../components/use_loaded'
import { usePageFocus } from '../../components/use_page_focus'
import { useMessageChanges } from '../messages/use_messages'

export type MessageVolume = components['schemas']['MessageVolume']
export type VolumeBucket = MessageVolume['buckets'][number]

const DAY_MS = 24 * 60 * 60 * 1000

/**
 * Messages per local day of the platform time zone (GET /statistics/messages, interval day,
 * `tz` left to the gateway's default) over the last `days` days, today included, and today's
 * figures: the last bucket, which runs from local midnight today since `to` defaults to now.
 *
 * `from` is an instant a day earlier than needed, not a date: the browser does not know the
 * platform's time zone (nor, near midnight, which day it is there), and the gateway counts every
 * local day that overlaps the range. The surplus days in front are dropped here.
 *
 * Read again when `days` changes, when the `messages` live channel says messages were queued,
 * received, changed status or were deleted (debounced: a busy gateway costs one read per
 * 300 ms), and when the operator comes back to the page (tab visible, window focused), in case
 * the stream was cut meanwhile.
 */
export function useMessageVolume(days: Ref<number>) {
  const loaded = useLoaded(async () => {
    const wanted = days.value
    const from = new Date(Date.now() - (wanted + 1) * DAY_MS).toISOString()
    const volume = await answer(api.GET('/api/v1/statistics/messages', { params: { query: { from, interval: 'day' } } }))
    return { ...volume, days: wanted, buckets: volume.buckets.slice(-wanted) }
  })
  watch(days, () => void loaded.reload())
  usePageFocus(() => void loaded.reload())
  useMessageChanges(() => true, () => void loaded.reload())

  const today = computed(() => loaded.data.value?.buckets.at(-1) ?? null)
  return { ...loaded, today }
}
