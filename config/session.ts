import { defineConfig, stores } from '@adonisjs/session'
import { withLenientTouches } from '#core/http/session_touches'

/** The signed-in dashboard's session cookie name; its data lives in gateway.db (`sessions`). */
export const SESSION_COOKIE_NAME = 'gateway_session'

/** How long a dashboard session lasts without a request; the XSRF-TOKEN cookie lives as long. */
export const SESSION_AGE = '12h'

/**
 * Dashboard sessions, kept in the gateway's own database so they are part of it (and of its
 * backups) and survive a restart. The cookie is HttpOnly and SameSite=Lax; it is marked Secure
 * when the gateway is reached over https (see the dashboard session middleware).
 */
const sessionConfig = defineConfig({
  enabled: true,
  cookieName: SESSION_COOKIE_NAME,
  clearWithBrowser: false,
  age: SESSION_AGE,
  cookie: {
    path: '/',
    httpOnly: true,
    secure: false,
    sameSite: 'lax',
  },
  store: 'database',
  stores: {
    database: withLenientTouches(stores.database({ tableName: 'sessions', gcProbability: 2 })),
  },
})

export default sessionConfig
