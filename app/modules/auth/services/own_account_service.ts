import { inject } from '@adonisjs/core'
import { Clock } from '#core/time/clock'
import { ApiError } from '#core/http/api_error'
import { ActivityLog } from '#core/activity/activity_log'
import type { Caller } from '#core/http/access'
import { dateTimeOf } from '#core/database/utc_date_time'
import type User from '#modules/auth/models/user'
import { SignInThrottle } from '#modules/auth/services/sign_in_throttle'
import { UserStore } from '#modules/auth/stores/user_store'
import { SessionStore } from '#modules/auth/stores/session_store'
import { LiveStreamSessions } from '#modules/auth/services/live_stream_sessions'
import { transaction } from '#core/database/transaction'
import type { EndedSessions } from '#modules/auth/schemas'

/**
 * Where the request comes from: the session to keep, the address the throttle judges, and the
 * caller the Activity entry names.
 */
export interface CallerSession {
  sessionId: string
  ip: string
  by: Caller
}

/**
 * What every signed-in person may do to their own account, whatever their role: change their
 * password and sign their other sessions out.
 */
@inject()
export class OwnAccountService {
  constructor(
    private clock: Clock,
    private activity: ActivityLog,
    private throttle: SignInThrottle,
    private liveStreams: LiveStreamSessions,
    private users: UserStore,
    private sessions: SessionStore
  ) {}

  /**
   * A stolen session must not become a stolen account: the current password is asked for, and a
   * wrong one counts as a failed sign-in of that address from that network address (the same
   * counters, so guessing here or at the sign-in form is slowed and locked alike).
   */
  async changePassword(userId: number, change: { currentPassword: string; newPassword: string }, caller: CallerSession): Promise<EndedSessions> {
    const account = await this.#account(userId)
    const attempt = await this.throttle.begin(account.email, caller.ip)
    if (!(await account.verifyPassword(change.currentPassword))) {
      const message = 'The current password is wrong'
      throw new ApiError('WRONG_CURRENT_PASSWORD', message, [{ field: 'currentPassword', rule: 'current_password', message }])
    }
    await this.throttle.succeeded(attempt)

    const endedSessions = await transaction(async (trx) => {
      await this.users.changePassword(trx, userId, change.newPassword, dateTimeOf(this.clock.now()))
      return this.sessions.endSessionsOf(trx, userId, caller.sessionId)
    })
    await this.liveStreams.review()
    await this.activity.actingFor(caller.by).info('auth', 'account.password_changed', `Account ${account.name} changed its own password; ${signedOut(endedSessions)}`, {
      userId: String(userId),
      endedSessions,
    })
    return { endedSessions }
  }

  async endOtherSessions(userId: number, caller: CallerSession): Promise<EndedSessions> {
    const account = await this.#account(userId)
    const endedSessions = await this.sessions.endSessionsOf(null, userId, caller.sessionId)
    await this.liveStreams.review()
    await this.activity.actingFor(caller.by).info('auth', 'account.sessions_ended', `Account ${account.name} signed out its other sessions; ${signedOut(endedSessions)}`, {
      userId: String(userId),
      endedSessions,
    })
    return { endedSessions }
  }

  async #account(userId: number): Promise<User> {
    const account = await this.users.find(userId)
    // The access layer found the account a moment ago: it was deleted in between.
    if (!account) throw new ApiError('MISSING_API_KEY', 'Sign in to the dashboard')
    return account
  }
}

function signedOut(count: number): string {
  return count === 1 ? '1 other session signed out' : `${count} other sessions signed out`
}
