import env from '#start/env'
import { Secret } from '@adonisjs/core/helpers'
import { defineConfig } from '@adonisjs/core/http'

/** Derived from the master key at start (app/core/boot/runtime.ts): nothing to configure. */
export const appKey = new Secret(env.get('APP_KEY'))

export const http = defineConfig({
  // The request-context middleware assigns and validates request ids itself.
  generateRequestId: false,
  allowMethodSpoofing: false,
  useAsyncLocalStorage: false,
  cookie: {
    domain: '',
    path: '/',
    maxAge: '2h',
    httpOnly: true,
    secure: false,
    sameSite: 'lax',
  },
})
