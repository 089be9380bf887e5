import { reactive, watch } from 'vue'
import { api, answer } from '../../api/client'
import type { components } from '../../api/schema'
import { useCursorList } from '../../components/use_cursor_list'

export type LogLine = components['schemas']['TechnicalLogLine']

type Level = 'debug' | 'info' | 'warn' | 'error'

export const levelOptions = [
  { value: '', label: 'Every line' },
  { value: 'info', label: 'Info and above' },
  { value: 'warn', label: 'Warnings and errors' },
  { value: 'error', label: 'Errors only' },
]

/**
 * The gateway's log, newest line first, with the filters GET /logs/technical takes. A filtered
 * page may come back short (the gateway reads a bounded part of the log per request) while
 * more lines may wait further back: `nextCursor` says so.
 */
export function useTechnicalLog() {
  const filters = reactive({ level: '', search: '' })
  const list = useCursorList<LogLine>((cursor) =>
    answer(
      api.GET('/api/v1/logs/technical', {
        params: {
          query: {
            cursor,
            limit: 50,
            level: (filters.level || undefined) as Level | undefined,
            search: filters.search.trim() || undefined,
          },
        },
      })
    )
  )
  watch(() => filters.level, () => void list.reload())
  return { ...list, filters }
}
