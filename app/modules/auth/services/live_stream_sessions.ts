import type { HttpContext } from '@adonisjs/core/http'
import type { NextFn } from '@adonisjs/core/types/http'
import { ApiError } from '#core/http/api_error'
import { SessionStore } from '#modules/auth/stores/session_store'
import { UserStore } from '#modules/auth/stores/user_store'

/** What this service uses of Transmit's server (`@adonisjs/transmit`). */
export interface TransmitStreams {
  on(event: 'connect' | 'disconnect', callback: (stream: { uid: string; context: unknown }) => void): unknown
  getManager(): {
    getAllSubscribers(): Map<{ getUid(): string; end(): unknown; on(event: 'error', listener: () => void): unknown }, Set<string>>
    verifyAccess(channel: string, context: unknown): Promise<boolean>
  }
}

interface OpenStream {
  sessionId: string
  userId: number
  /** The request that opened the stream: Transmit judges every channel on it. */
  context: HttpContext
}

/** Another process (`node ace user:reset-password`) or the session's age can end a session too. */
const SWEEP_MS = 5_000

/**
 * The live streams (Transmit, Server-Sent Events) open in this process and the dashboard
 * session each was opened by. The session is checked only when a stream opens and at each
 * subscription, so without this a stream outlived its session: a browser signed out, an account
 * deleted or demoted, its sessions ended by "sign out others" or a password change, kept
 * receiving the channels it followed until it disconnected.
 *
 * A stream is closed as soon as its session ends in this process (sign-out, an account deleted,
 * sessions ended), and at most SWEEP_MS later when the session row disappears or expires some
 * other way. A demoted account's streams stay open but lose the channels its new role may not
 * follow (Transmit's own authorisations, judged again with the new role).
 */
export class LiveStreamSessions {
  constructor(
    private sessions: SessionStore,
    private users: UserStore
  ) {}

  readonly #open = new Map<string, OpenStream>()
  #transmit: TransmitStreams | null = null
  #timer: NodeJS.Timeout | null = null
  #reviewing: Promise<void> | null = null

  /** Follows the streams Transmit opens and closes; sweeps while the server runs. */
  attach(transmit: TransmitStreams, options: { sweep: boolean }) {
    this.#transmit = transmit
    transmit.on('connect', ({ uid, context }) => this.#track(uid, context as HttpContext))
    transmit.on('disconnect', ({ uid, context }) => {
      if (this.#open.get(uid)?.context === context) this.#open.delete(uid)
    })
    if (options.sweep && !this.#timer) {
      this.#timer = setInterval(() => void this.review().catch(() => {}), SWEEP_MS)
      this.#timer.unref()
    }
  }

  stop() {
    if (this.#timer) clearInterval(this.#timer)
    this.#timer = null
  }

  /** How many streams are open (tests and diagnostics). */
  get size(): number {
    return this.#open.size
  }

  /** Whether the stream `uid` is open in this process and was opened by the session `sessionId`. */
  isOpenedBy(uid: string, sessionId: string | undefined): boolean {
    return sessionId !== undefined && this.#open.get(uid)?.sessionId === sessionId
  }

  /**
   * Route middleware of /__transmit/subscribe and /__transmit/unsubscribe, after the input is
   * checked: a stream is changed only by the session that opened it. The uid is the client's
   * own pick and travels in the stream's URL, so knowing one proves nothing; without this a
   * signed-in session could add channels to another session's stream, or take them away. A uid
   * not open, or open by another session, is answered alike (404), so the refusal does not tell
   * whether someone else's stream exists (docs/live-channels.md, Connecting).
   */
  readonly ownStreamOnly = async (ctx: HttpContext, next: NextFn) => {
    if (ctx.request.method() === 'POST' && !this.isOpenedBy(String(ctx.request.input('uid')), ctx.session?.sessionId)) {
      throw new ApiError('NOT_FOUND', 'No live stream of this session has this uid', { field: 'uid' })
    }
    return next()
  }

  /** The session was signed out or moved to a new id: its streams close now. */
  endSession(sessionId: string) {
    for (const [uid, stream] of this.#open) if (stream.sessionId === sessionId) this.#close(uid)
  }

  /**
   * Compares every open stream with the sessions and accounts in the database: a session gone
   * (ended, expired) or an account gone closes the stream; a role changed takes away the
   * channels the new role may not follow. Two queries, only while streams are open.
   */
  review(): Promise<void> {
    // One review at a time; a call during one waits for it, then runs again on what it left.
    const run = (this.#reviewing ?? Promise.resolve()).then(() => this.#review())
    this.#reviewing = run.finally(() => {
      if (this.#reviewing === run) this.#reviewing = null
    })
    return run
  }

  async #review() {
    if (this.#open.size === 0) return
    const streams = [...this.#open]
    const sessionIds = [...new Set(streams.map(([, stream]) => stream.sessionId))]
    const userIds = [...new Set(streams.map(([, stream]) => stream.userId))]
    const [sessions, roles] = await Promise.all([this.sessions.rowsOf(sessionIds), this.users.rolesOf(userIds)])
    const now = Date.now()
    const live = new Map(sessions.map((row) => [row.id, row]))
    for (const [uid, stream] of streams) {
      if (this.#open.get(uid) !== stream) continue
      const session = live.get(stream.sessionId)
      const role = roles.get(stream.userId)
      const expired = !session || new Date(session.expires_at as number | string).getTime() <= now
      if (expired || session.user_id !== String(stream.userId) || role === undefined) {
        this.#close(uid)
        continue
      }
      const user = stream.context.auth?.use('web').user
      if (user && user.role !== role) {
        // The stream's request keeps the account as it was at connection: it now says the new
        // role, so Transmit's authorisations judge the channels again with it.
        user.role = role as typeof user.role
        await this.#recheckChannels(uid, stream)
      }
    }
  }

  #track(uid: string, context: HttpContext) {
    const sessionId = context.session?.sessionId
    const user = context.auth?.use('web').user
    // The stream routes refuse a caller without a signed-in session before Transmit opens one.
    if (!sessionId || !user) return
    this.#open.set(uid, { sessionId, userId: user.id, context })
  }

  /** Drops the channels the stream's account may no longer follow. */
  async #recheckChannels(uid: string, stream: OpenStream) {
    const manager = this.#transmit?.getManager()
    if (!manager) return
    for (const [candidate, channels] of manager.getAllSubscribers()) {
      if (candidate.getUid() !== uid) continue
      for (const channel of [...channels]) {
        if (!(await manager.verifyAccess(channel, stream.context))) channels.delete(channel)
      }
    }
  }

  /**
   * Stops every broadcast to the stream at once (its channels are emptied), then ends it: the
   * client sees the stream end. A browser's EventSource connects again by itself, and its new
   * stream is judged on the session it holds now (refused when signed out).
   */
  #close(uid: string) {
    this.#open.delete(uid)
    const manager = this.#transmit?.getManager()
    if (!manager) return
    for (const [candidate, channels] of manager.getAllSubscribers()) {
      if (candidate.getUid() !== uid) continue
      channels.clear()
      // Transmit keeps listing the stream, and pinging it, until the HTTP response has closed:
      // a ping in between is a write after end, whose 'error' event would otherwise end the
      // process. Nothing is lost by ignoring it: the stream is being closed on purpose.
      candidate.on('error', () => {})
      candidate.end()
    }
  }
}
