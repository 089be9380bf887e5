import { configProvider } from '@adonisjs/core'
import type { ConfigProvider } from '@adonisjs/core/types'
import type { SessionStoreContract, SessionStoreFactory } from '@adonisjs/session/types'
import { databaseRefusal } from '#core/database/database_refusal'

/** A session's expiry is pushed back at most this often (sessions last hours). */
export const SESSION_TOUCH_INTERVAL_MS = 60_000
/** Sessions whose last touch is remembered; past it the memory starts again (a touch too many is harmless). */
const REMEMBERED_SESSIONS = 10_000

const lastTouched = new Map<string, number>()

/**
 * The session store as configured, with a lighter `touch`. The store pushes a session's expiry
 * back at the end of every request: a database write per dashboard request, which behind
 * another program's lock waited 5 s before each read answered, and on a full disk could refuse
 * a read. Here a session is touched at most once a minute, and a touch the database refuses
 * for a full disk or a lock is left for a later request: the session lives on meanwhile.
 */
export function withLenientTouches(provider: ConfigProvider<SessionStoreFactory>): ConfigProvider<SessionStoreFactory> {
  return configProvider.create(async (app) => {
    const factory = await provider.resolver(app)
    return (ctx, config) => lenientTouches(factory(ctx, config))
  })
}

function lenientTouches(store: SessionStoreContract): SessionStoreContract {
  const touch = async (sessionId: string) => {
    const now = Date.now()
    const last = lastTouched.get(sessionId)
    if (last !== undefined && now - last < SESSION_TOUCH_INTERVAL_MS) return
    if (lastTouched.size >= REMEMBERED_SESSIONS) lastTouched.clear()
    lastTouched.set(sessionId, now)
    try {
      await store.touch(sessionId)
    } catch (error) {
      lastTouched.delete(sessionId)
      if (!databaseRefusal(error)) throw error
    }
  }
  return new Proxy(store, {
    get(target, property) {
      if (property === 'touch') return touch
      const value = Reflect.get(target, property, target)
      return typeof value === 'function' ? value.bind(target) : value
    },
  })
}
