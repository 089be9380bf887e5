/**
 * A browser over real HTTP: one cookie jar that keeps every Set-Cookie (the newest value wins,
 * an expired cookie is dropped), and on writes the X-XSRF-TOKEN header echoing the newest
 * XSRF-TOKEN cookie, as the dashboard (and axios) do.
 */
export class Browser {
  readonly jar = new Map<string, string>()

  /** `origin`: the gateway's address (default: the test run's server). */
  constructor(private origin = `http://127.0.0.1:${process.env.PORT}`) {}

  /** Another browser holding a copy of this one's cookies (a cookie copied off the machine). */
  copy(): Browser {
    const other = new Browser(this.origin)
    for (const [name, value] of this.jar) other.jar.set(name, value)
    return other
  }

  async signIn(email: string, password: string) {
    const answer = await this.call('POST', '/api/v1/auth/login', { email, password })
    if (answer.status !== 200) throw new Error(`sign-in answered ${answer.status}: ${JSON.stringify(answer.body)}`)
  }

  async call(method: string, path: string, body?: unknown, extraHeaders: Record<string, string> = {}) {
    const headers: Record<string, string> = { accept: 'application/json', ...extraHeaders }
    if (this.jar.size > 0) headers.cookie = [...this.jar].map(([name, value]) => `${name}=${value}`).join('; ')
    const xsrf = this.jar.get('XSRF-TOKEN')
    if (method !== 'GET' && xsrf) headers['x-xsrf-token'] = decodeURIComponent(xsrf)
    if (body !== undefined) headers['content-type'] = 'application/json'
    const answer = await fetch(`${this.origin}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    for (const line of answer.headers.getSetCookie()) {
      const [pair] = line.split(';')
      const [name, value] = pair.split(/=(.*)/s)
      if (/expires=Thu, 01 Jan 1970/i.test(line) || /max-age=0\b/i.test(line) || !value) this.jar.delete(name.trim())
      else this.jar.set(name.trim(), value)
    }
    const text = await answer.text()
    return { status: answer.status, body: text ? JSON.parse(text) : null }
  }
}
