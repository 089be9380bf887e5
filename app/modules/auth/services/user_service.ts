import { inject } from '@adonisjs/core'
import hash from '@adonisjs/core/services/hash'
import type { TransactionClientContract } from '@adonisjs/lucid/types/database'
import type { Caller, Role } from '#core/http/access'
import { Clock } from '#core/time/clock'
import { ApiError } from '#core/http/api_error'
import { ActivityLog } from '#core/activity/activity_log'
import { dateTimeOf, toIso } from '#core/database/utc_date_time'
import type { PageRequest } from '#core/pagination/keyset_page'
import type User from '#modules/auth/models/user'
import { UserStore, type UserRow } from '#modules/auth/stores/user_store'
import { SessionStore } from '#modules/auth/stores/session_store'
import { LiveStreamSessions } from '#modules/auth/services/live_stream_sessions'
import { resetPasswordValidator } from '#modules/auth/validators/account_validators'
import { transaction } from '#core/database/transaction'
import type { PageOf } from '#core/contract/schemas'
import type { AssignableAccounts, userSchema } from '#modules/auth/schemas'

export interface NewAccount {
  email: string
  name: string
  password: string
  role: Role
}

/**
 * Dashboard accounts: the first one, and those a superadmin creates, edits and deletes.
 * SQLite has a single connection: inside a transaction every query goes through `trx`, and
 * the Activity log is written after the commit, or the pool waits for itself.
 */
@inject()
export class UserService {
  constructor(
    private clock: Clock,
    private activity: ActivityLog,
    private liveStreams: LiveStreamSessions,
    private users: UserStore,
    private sessions: SessionStore
  ) {}

  /** The first account, a superadmin. Refused once any account exists. */
  /** Open while no account exists: the first one is created by POST /auth/setup. */
  async setUpIsOpen(): Promise<boolean> {
    return !(await this.users.anyExists())
  }

  async setUp(account: Omit<NewAccount, 'role'>): Promise<User> {
    const user = await transaction(async (trx) => {
      if ((await this.users.count(trx)) > 0) {
        throw new ApiError('ALREADY_SET_UP', 'The gateway has its first account already; sign in instead')
      }
      return this.users.add(trx, this.#row({ ...account, role: 'superadmin' }))
    })
    // No one is signed in at setup: the person who made the first account is that account.
    await this.activity
      .actingAs({ actor: `account:${user.id}`, name: user.name })
      .info('auth', 'account.created', `First account created (superadmin ${user.name})`, { userId: String(user.id) })
    return user
  }

  /** `by`: the caller, named in the Activity log entry (a signed-in superadmin also in its sentence). */
  async create(account: NewAccount, by: Caller | null): Promise<User> {
    const byUserId = actingAccount(by)
    await this.#assertEmailFree(account.email)
    const user = await this.users.add(null, this.#row(account))
    await this.activity.actingFor(by).info('auth', 'account.created', await this.#byWhom(byUserId, `created account ${user.name} with role ${user.role}`), {
      userId: String(user.id),
      ...(byUserId === undefined ? {} : { byUserId: String(byUserId) }),
    })
    return user
  }

  async list(page: PageRequest): Promise<PageOf<typeof userSchema>> {
    const result = await this.users.page(page)
    return { data: result.data.map((user) => user.toResource()), nextCursor: result.nextCursor }
  }

  /**
   * The accounts a conversation can be assigned to (operators and superadmins: a read-only
   * account cannot answer), by name; ids and names only, no e-mail.
   */
  async assignable(): Promise<AssignableAccounts['data']> {
    const users = await this.users.operatorsAndSuperadmins()
    // The query takes operators and superadmins only.
    return users.map((user) => ({ id: String(user.id), name: user.name, role: user.role as 'operator' | 'superadmin' }))
  }

  async find(id: number): Promise<User> {
    const user = await this.users.find(id)
    if (!user) throw ApiError.notFound('Account')
    return user
  }

  /**
   * A new password ends the account's other sessions (`keepSessionId`: the caller's own, kept
   * when people change their own password).
   */
  async update(id: number, change: Partial<NewAccount>, keepSessionId: string | undefined, by: Caller | null): Promise<User> {
    const byUserId = actingAccount(by)
    const changes: string[] = []
    const updated = await transaction(async (trx) => {
      const user = await this.users.findIn(trx, id)
      if (!user) throw ApiError.notFound('Account')
      if (change.role !== undefined && change.role !== 'superadmin' && user.role === 'superadmin') {
        await this.#assertAnotherSuperadmin(user.id, trx)
      }
      const newEmail = change.email !== undefined && change.email.toLowerCase() !== user.email
      if (newEmail) {
        await this.#assertEmailFree(change.email!, trx)
        // The address itself stays out of the log.
        changes.push('e-mail address changed')
      }
      if (change.name !== undefined && change.name !== user.name) changes.push(`name ${user.name} → ${change.name}`)
      if (change.role !== undefined && change.role !== user.role) changes.push(`role ${user.role} → ${change.role}`)
      if (change.password !== undefined) changes.push('password set')
      await this.users.change(trx, user, {
        email: newEmail ? change.email!.toLowerCase() : undefined,
        name: change.name,
        role: change.role,
        password: change.password,
        updatedAt: dateTimeOf(this.clock.now()),
      })
      if (change.password !== undefined) await this.sessions.endSessionsOf(trx, user.id, keepSessionId)
      return user
    })
    // Sessions ended close their live streams; a lowered role loses the channels it may not follow.
    if (change.password !== undefined || change.role !== undefined) await this.liveStreams.review()
    const what = changes.length ? changes.join(', ') : 'nothing changed'
    await this.activity.actingFor(by).info('auth', 'account.changed', await this.#byWhom(byUserId, `changed account ${updated.name}: ${what}`), {
      userId: String(updated.id),
      ...(byUserId === undefined ? {} : { byUserId: String(byUserId) }),
    })
    return updated
  }

  /** Addresses are stored lower-cased: found ignoring case. */
  async findByEmail(email: string): Promise<User> {
    const user = await this.users.findByEmail(email.trim().toLowerCase())
    if (!user) throw new ApiError('NOT_FOUND', 'No account has that e-mail address')
    return user
  }

  /**
   * For an operator locked out (`node ace user:reset-password`): no current password asked, the
   * account rules apply, and every session of the account is signed out. Runs beside a running
   * gateway, on a second connection: the slow hash is made before the transaction, whose first
   * statement is then a write, so SQLite waits for the server's writes (busy timeout) instead of
   * failing on a read snapshot that went stale while hashing.
   */
  async resetPassword(email: string, newPassword: string): Promise<{ user: User; endedSessions: number }> {
    const { password } = await resetPasswordValidator.validate({ password: newPassword })
    const user = await this.findByEmail(email)
    const hashed = await hash.use('scrypt').make(password)
    const endedSessions = await transaction(async (trx) => {
      if (!(await this.users.setPasswordHash(trx, user.id, hashed, toIso(dateTimeOf(this.clock.now()))))) {
        throw new ApiError('NOT_FOUND', 'No account has that e-mail address')
      }
      return this.sessions.endSessionsOf(trx, user.id)
    })
    await this.activity.warning(
      'auth',
      'account.password_reset',
      `Password of account ${user.name} reset from the command line; ${endedSessions === 1 ? '1 session' : `${endedSessions} sessions`} signed out`,
      { userId: String(user.id), endedSessions }
    )
    return { user, endedSessions }
  }

  async delete(id: number, by: Caller | null): Promise<void> {
    const byUserId = actingAccount(by)
    const deleted = await transaction(async (trx) => {
      const user = await this.users.findIn(trx, id)
      if (!user) throw ApiError.notFound('Account')
      if (user.role === 'superadmin') await this.#assertAnotherSuperadmin(user.id, trx)
      await this.users.remove(trx, user)
      // Its sessions end with it (the session guard would refuse them anyway).
      await this.sessions.endSessionsOf(trx, user.id)
      return user
    })
    await this.liveStreams.review()
    await this.activity.actingFor(by).info('auth', 'account.deleted', await this.#byWhom(byUserId, `deleted account ${deleted.name} (${deleted.role})`, deleted), {
      userId: String(id),
      ...(byUserId === undefined ? {} : { byUserId: String(byUserId) }),
    })
  }

  /**
   * An Activity log sentence that names who acted ("Owner deleted account Ops"), when known.
   * `gone`: an account deleted just now, which may be the actor's own.
   */
  async #byWhom(byUserId: number | undefined, deed: string, gone?: User): Promise<string> {
    const actor = byUserId === undefined ? null : byUserId === gone?.id ? gone : await this.users.find(byUserId)
    return actor ? `${actor.name} ${deed}` : deed.charAt(0).toUpperCase() + deed.slice(1)
  }

  async #assertAnotherSuperadmin(exceptId: number, trx: TransactionClientContract) {
    if ((await this.users.otherSuperadmins(trx, exceptId)) === 0) {
      throw new ApiError('LAST_SUPERADMIN', 'This is the last superadmin: make another account superadmin first')
    }
  }

  async #assertEmailFree(email: string, trx?: TransactionClientContract) {
    if (await this.users.findByEmail(email.toLowerCase(), trx)) {
      throw new ApiError('NAME_TAKEN', 'Another account has this e-mail address', [
        { field: 'email', rule: 'unique', message: 'Another account has this e-mail address' },
      ])
    }
  }

  #row(account: NewAccount): UserRow {
    const now = dateTimeOf(this.clock.now())
    return { email: account.email.toLowerCase(), name: account.name, role: account.role, password: account.password, createdAt: now, updatedAt: now }
  }
}

/** The signed-in account acting (account changes are refused to every key). */
function actingAccount(caller: Caller | null): number | undefined {
  return caller?.type === 'session' ? Number(caller.id) : undefined
}
