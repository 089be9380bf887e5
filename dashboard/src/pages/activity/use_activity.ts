import { reactive, shallowRef, watch } from 'vue'
import { api, answer } from '../../api/client'
import type { components } from '../../api/schema'
import { useCursorList } from '../../components/use_cursor_list'

export type ActivityEntry = components['schemas']['ActivityEntry']
export type ActivityLevel = ActivityEntry['level']

export type ActivityTerm = components['schemas']['ActivityTerm']

/**
 * What the entries are about, in the operator's words, as the modules declare them (GET
 * /activity/vocabulary): the sources that write the log (`source`) and the families of kinds
 * (`kind=webhook` takes every `webhook.*`) or single kinds. Read once per visit of the app; until
 * it answers, a source shows as its name.
 */
export const activityVocabulary = shallowRef<{ sources: ActivityTerm[]; kinds: ActivityTerm[] }>({ sources: [], kinds: [] })
let vocabularyRead: Promise<void> | null = null

/** Reads the vocabulary once (again after a failure); rejects with the failure for the page to show. */
export function loadActivityVocabulary(): Promise<void> {
  vocabularyRead ??= answer(api.GET('/api/v1/activity/vocabulary')).then(
    (vocabulary) => void (activityVocabulary.value = vocabulary),
    (error: unknown) => {
      vocabularyRead = null
      throw error
    }
  )
  return vocabularyRead
}

/** Who wrote entries (GET /activity/actors), as the "By" filter offers them. */
export async function activityActors() {
  const { data } = await answer(api.GET('/api/v1/activity/actors'))
  return data.map(({ actor, name }) => ({ value: actor, label: actorLabel(actor, name) }))
}

export function actorLabel(actor: string | null, name: string | null): string {
  if (actor === null) return 'the gateway'
  const what = actor.startsWith('api_key:') ? 'API key' : 'account'
  return name ? `${name} (${what})` : `${what} ${actor.split(':')[1]}`
}

export const sourceLabel = (source: string) => activityVocabulary.value.sources.find((known) => known.value === source)?.label ?? source

export interface ActivityFilters {
  /** An ActivityLevel, or '' for any. */
  level: string
  /** A kind family (`webhook`) or kind, or '' for any. */
  kind: string
  /** account:<id>, api_key:<id>, system, or '' for anyone. */
  actor: string
  /** yyyy-mm-dd, a day of the operator's own calendar; '' for no bound. */
  fromDay: string
  toDay: string
  search: string
}

/** Local midnight of a yyyy-mm-dd day, `plusDays` later, as the instant the API takes. */
function localMidnight(day: string, plusDays = 0): string {
  const [year, month, date] = day.split('-').map(Number)
  return new Date(year, month - 1, date + plusDays).toISOString()
}

/**
 * The Activity log, newest first, with the filters GET /activity takes. The dates are days of
 * the operator's own calendar: "to" includes its whole day. A filter change reads the first page again.
 */
export function useActivity() {
  const filters = reactive<ActivityFilters>({ level: '', kind: '', actor: '', fromDay: '', toDay: '', search: '' })
  const list = useCursorList<ActivityEntry>((cursor) =>
    answer(
      api.GET('/api/v1/activity', {
        params: {
          query: {
            cursor,
            limit: 50,
            level: (filters.level || undefined) as ActivityLevel | undefined,
            kind: filters.kind || undefined,
            actor: filters.actor || undefined,
            since: filters.fromDay ? localMidnight(filters.fromDay) : undefined,
            until: filters.toDay ? localMidnight(filters.toDay, 1) : undefined,
            search: filters.search.trim() || undefined,
          },
        },
      })
    )
  )
  // Typing in the search box waits for Enter (the form's submit); the other filters apply at once.
  watch(() => [filters.level, filters.kind, filters.actor, filters.fromDay, filters.toDay], () => void list.reload())
  return { ...list, filters }
}
