import { computed, onBeforeUnmount, shallowRef, watch, type Ref, type ShallowRef } from 'vue'
import { api, answer, ApiProblem } from '../../api/client'
import type { components } from '../../api/schema'
import { usePageFocus } from '../../components/use_page_focus'
import { useLiveChannel } from '../../live/live'
import { apiRange, rangeProblem, type StatisticsRange } from './statistics_range'

export type MessageVolume = components['schemas']['MessageVolume']
export type Breakdown = components['schemas']['MessageVolumeBreakdown']
export type BreakdownGroup = Breakdown['groups'][number]
export type DeliveryRateOverTime = components['schemas']['DeliveryRateOverTime']
export type FailureReasons = components['schemas']['FailureReasons']
export type MessageLatency = components['schemas']['MessageLatency']
export type LinkClicks = components['schemas']['LinkClicksOverTime']
export type OptOuts = components['schemas']['OptOutsOverTime']

type Query = ReturnType<typeof apiRange>

/** One figure of the page: its last answer for the range shown, and what went wrong. */
export interface Section<Data> {
  data: ShallowRef<Data | undefined>
  problem: ShallowRef<ApiProblem | null>
}

/** A busy gateway costs one read of the page per 2 s at most. */
const LIVE_PAUSE_MS = 2000

/**
 * Every figure of the Statistics page for a range of local days of the platform's time zone,
 * one request per endpoint, in parallel, shown together once all have answered. Each keeps its
 * own answer and problem, so one refusal leaves the others on screen. Answers for a range no
 * longer asked for are dropped.
 *
 * Read again when the range changes, when the `messages` channel says messages changed (at
 * most once per 2 s) and when the operator comes back to the tab or window.
 */
export function useStatistics(range: Ref<StatisticsRange>, timezone: Ref<string | null>) {
  let generation = 0
  /** Each read answers how to show its outcome; the page shows them all at once. */
  const reads: Array<(query: Query) => Promise<() => void>> = []

  function section<Data>(read: (query: Query) => Promise<Data>): Section<Data> {
    const data = shallowRef<Data>()
    const problem = shallowRef<ApiProblem | null>(null)
    reads.push(async (query) => {
      try {
        const answered = await read(query)
        return () => {
          data.value = answered
          problem.value = null
        }
      } catch (error) {
        return () => {
          data.value = undefined
          problem.value = error instanceof ApiProblem ? error : new ApiProblem(0, 'UNEXPECTED', 'Something went wrong in the dashboard')
        }
      }
    })
    return { data, problem }
  }

  const volume = section((query) => answer(api.GET('/api/v1/statistics/messages', { params: { query } })))
  const delivery = section((query) => answer(api.GET('/api/v1/statistics/delivery-rate', { params: { query } })))
  const byPhone = section((query) => answer(api.GET('/api/v1/statistics/messages/breakdown', { params: { query: { ...query, groupBy: 'device' } } })))
  const bySim = section((query) => answer(api.GET('/api/v1/statistics/messages/breakdown', { params: { query: { ...query, groupBy: 'sim' } } })))
  const failures = section((query) => answer(api.GET('/api/v1/statistics/failures', { params: { query } })))
  const latency = section((query) => answer(api.GET('/api/v1/statistics/latency', { params: { query } })))
  const links = section((query) => answer(api.GET('/api/v1/statistics/links', { params: { query: { ...query, limit: 10 } } })))
  const optOuts = section((query) => answer(api.GET('/api/v1/statistics/opt-outs', { params: { query } })))

  const loading = shallowRef(false)
  /** The range the figures on screen were read for. */
  const shown = shallowRef<StatisticsRange | null>(null)

  async function reload() {
    const zone = timezone.value
    const wanted = range.value
    if (!zone || rangeProblem(wanted)) return
    const mine = ++generation
    loading.value = true
    const outcomes = await Promise.all(reads.map((read) => read(apiRange(wanted, zone))))
    // A newer range was asked for meanwhile: its answers will be shown, not these.
    if (mine !== generation) return
    // All the cards change together: never figures of two ranges side by side.
    for (const show of outcomes) show()
    shown.value = wanted
    loading.value = false
  }

  // A new range or zone, not a new object of the same range, reads again.
  watch(() => JSON.stringify([range.value, timezone.value]), () => void reload(), { immediate: true })
  usePageFocus(() => void reload())

  let timer: ReturnType<typeof setTimeout> | undefined
  useLiveChannel('messages', () => {
    timer ??= setTimeout(() => {
      timer = undefined
      void reload()
    }, LIVE_PAUSE_MS)
  })
  onBeforeUnmount(() => clearTimeout(timer))

  const sections = { volume, delivery, byPhone, bySim, failures, latency, links, optOuts }
  /** The distinct problems of the figures, for one alert instead of eight. */
  const problems = computed(() => [...new Set(Object.values(sections).flatMap((entry) => (entry.problem.value ? [entry.problem.value.message] : [])))])
  return { ...sections, loading, shown, problems, reload }
}
