import { computed } from 'vue'
import { useRoute, useRouter, type LocationQuery } from 'vue-router'
import type { operations } from '../../api/schema'

export type ListQuery = NonNullable<operations['listMessages']['parameters']['query']>

/** What the operator filters on, as kept in the page's address (strings; '' = any). */
export interface MessageFilters {
  status: string
  direction: string
  deviceId: string
  category: string
  /** Local dates, YYYY-MM-DD, both included. */
  from: string
  to: string
  /** One conversation's messages: the Send page links its accepted messages here. */
  conversationId: string
  /** A search: words of the text, a part of the number, a contact's name (docs/sending.md, Search). */
  q: string
}

const KEYS = ['status', 'direction', 'deviceId', 'category', 'from', 'to', 'conversationId', 'q'] as const satisfies ReadonlyArray<keyof MessageFilters>

function filtersOf(query: LocationQuery): MessageFilters {
  const read = (key: string) => (typeof query[key] === 'string' ? (query[key] as string) : '')
  return Object.fromEntries(KEYS.map((key) => [key, read(key)])) as unknown as MessageFilters
}

/** Midnight of a local date (the operator's), as an instant. */
function localMidnight(date: string, plusDays = 0): string | undefined {
  const [year, month, day] = date.split('-').map(Number)
  if (!year || !month || !day) return undefined
  return new Date(year, month - 1, day + plusDays).toISOString()
}

/**
 * The status and direction as the API takes them. A row reads Received for an incoming
 * `delivered` and Delivered only for an outgoing one (labels.ts, messageStatusLabel), so the
 * filter's Received asks for the incoming delivered messages, and its Delivered, with no
 * direction chosen, for the outgoing ones: the list holds exactly the rows showing that word.
 */
function statusQueryOf(filters: MessageFilters): Pick<ListQuery, 'status' | 'direction'> {
  const direction = (filters.direction || undefined) as ListQuery['direction']
  if (filters.status === 'received') return { status: 'delivered', direction: 'in' }
  if (filters.status === 'delivered') return { status: 'delivered', direction: direction ?? 'out' }
  return { status: (filters.status || undefined) as ListQuery['status'], direction }
}

/** The query of GET /messages for these filters: the dates become instants of the operator's days. */
export function listQueryOf(filters: MessageFilters): ListQuery {
  return {
    ...statusQueryOf(filters),
    deviceId: filters.deviceId || undefined,
    category: (filters.category || undefined) as ListQuery['category'],
    since: filters.from ? localMidnight(filters.from) : undefined,
    until: filters.to ? localMidnight(filters.to, 1) : undefined,
    conversationId: filters.conversationId || undefined,
    q: filters.q || undefined,
  }
}

/**
 * The filters live in the address (`/messages?status=failed&from=2026-11-01`), so a reload or
 * a shared link shows the same list; the open message (`message=ID`) too.
 */
export function useMessageFilters() {
  const route = useRoute()
  const router = useRouter()
  const filters = computed(() => filtersOf(route.query))
  const openId = computed(() => (typeof route.query.message === 'string' ? route.query.message : null))
  const active = computed(() => KEYS.some((key) => filters.value[key] !== ''))

  function queryWith(change: Record<string, string | null>) {
    const query: Record<string, string> = {}
    for (const [key, value] of Object.entries({ ...route.query, ...change })) if (typeof value === 'string' && value !== '') query[key] = value
    return query
  }
  function replaceQuery(change: Record<string, string | null>) {
    void router.replace({ query: queryWith(change) })
  }

  return {
    filters,
    openId,
    active,
    setFilters: (next: MessageFilters) => replaceQuery({ ...next, message: openId.value }),
    clearFilters: () => replaceQuery({ ...Object.fromEntries(KEYS.map((key) => [key, null])) }),
    open: (id: string | null) => replaceQuery({ message: id }),
    /** Where a row's link leads: this list with that message open (`/messages?status=failed&message=42`). */
    linkTo: (id: string) => ({ query: queryWith({ message: id }) }),
  }
}
