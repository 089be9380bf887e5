import app from '@adonisjs/core/services/app'
import type { ApiClient, ApiRequest, ApiResponse } from '@japa/api-client'
import type { Role, Scope } from '#core/http/access'
import { ApiKeyService } from '#modules/auth/services/api_key_service'
import { UserService } from '#modules/auth/services/user_service'
import ApiKey from '#modules/auth/models/api_key'
import User from '#modules/auth/models/user'
import { SignInAttempts } from '#modules/auth/services/sign_in_throttle'

/**
 * Real API keys, one per scope, created once per test run through the auth module's service
 * (no fake guard): tests send them as X-API-KEY like any integration.
 */
export const testKeys: Record<Scope, string> = { read: '', send: '', admin: '' }

export async function useTestKeys(): Promise<void> {
  if (testKeys.read) return
  const keys = await app.container.make(ApiKeyService)
  for (const scope of ['read', 'send', 'admin'] as const) {
    const existing = await ApiKey.findBy('name_key', `test ${scope} key`)
    if (existing) await keys.revoke(existing.id, null)
    testKeys[scope] = (await keys.create({ name: `test ${scope} key`, scope }, null)).secret
  }
}

export const TEST_PASSWORD = 'correct horse battery staple'

/** A dashboard account of the role, created if missing. */
export async function accountWithRole(role: Role): Promise<User> {
  const email = `${role}@gateway.test`
  const existing = await User.findBy('email', email)
  if (existing) return existing
  return (await app.container.make(UserService)).create({ email, name: `Test ${role}`, password: TEST_PASSWORD, role }, null)
}

/** The cookies a signed-in browser holds: the session and the XSRF token to echo. */
export interface BrowserSession {
  cookie: string
  xsrf: string
}

/** Reads Set-Cookie answers into a Cookie header, as a browser would. */
export function cookiesFrom(response: ApiResponse, previous = ''): BrowserSession {
  const jar = new Map<string, string>()
  for (const part of previous.split(';')) {
    const [name, ...rest] = part.trim().split('=')
    if (name) jar.set(name, rest.join('='))
  }
  const setCookie = response.headers()['set-cookie'] ?? []
  for (const line of Array.isArray(setCookie) ? setCookie : [setCookie]) {
    const [pair] = String(line).split(';')
    const [name, ...rest] = pair.split('=')
    const value = rest.join('=')
    if (/expires=Thu, 01 Jan 1970/i.test(String(line)) || value === '') jar.delete(name.trim())
    else jar.set(name.trim(), value)
  }
  const cookie = [...jar].map(([name, value]) => `${name}=${value}`).join('; ')
  return { cookie, xsrf: decodeURIComponent(jar.get('XSRF-TOKEN') ?? '') }
}

/** Signs an account in through POST /auth/login and returns the browser's cookies. */
export async function signIn(client: ApiClient, email: string, password = TEST_PASSWORD): Promise<BrowserSession> {
  // Tests sign in many times from 127.0.0.1: start each from a clean throttle.
  ;(await app.container.make(SignInAttempts)).clear()
  const response = await client.post('/api/v1/auth/login').json({ email, password })
  response.assertStatus(200)
  return cookiesFrom(response)
}

export async function signInAs(client: ApiClient, role: Role): Promise<BrowserSession> {
  const account = await accountWithRole(role)
  return signIn(client, account.email)
}

/** Sends the session cookie and, as the dashboard does, the XSRF token header. */
export function asBrowser(request: ApiRequest, session: BrowserSession): ApiRequest {
  return request.header('cookie', session.cookie).header('x-xsrf-token', session.xsrf)
}
