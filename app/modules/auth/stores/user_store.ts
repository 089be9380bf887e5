import db from '@adonisjs/lucid/services/db'
import type { TransactionClientContract } from '@adonisjs/lucid/types/database'
import type { DateTime } from 'luxon'
import type { Role } from '#core/http/access'
import { toIso } from '#core/database/utc_date_time'
import { keysetPage, type Page, type PageRequest } from '#core/pagination/keyset_page'
import User from '#modules/auth/models/user'

/** An account's columns as stored (the e-mail address lower-cased; the password as typed, hashed on save). */
export interface UserRow {
  email: string
  name: string
  role: Role
  password: string
  createdAt: DateTime
  updatedAt: DateTime
}

/**
 * The `users` table (docs/modules.md, Data access): the User model (its auth finder hashes a
 * password on save and checks one at sign-in) for an account's reads and writes, the query
 * builder for counts, the roles the live streams' review reads and a reset password, whose hash
 * is made before its transaction.
 */
export class UserStore {
  async anyExists(): Promise<boolean> {
    return (await db.from('users').select('id').first()) !== null
  }

  async count(trx: TransactionClientContract): Promise<number> {
    const existing = await trx.from('users').count('* as total').first()
    return Number(existing?.total ?? 0)
  }

  /** A new account, in the caller's transaction (null: on its own). */
  async add(trx: TransactionClientContract | null, row: UserRow): Promise<User> {
    return trx ? User.create(row, { client: trx }) : User.create(row)
  }

  /** A page of accounts, newest first. */
  async page(request: PageRequest): Promise<Page<User>> {
    return keysetPage(User.query(), request, 'created_at', (row) => toIso(row.createdAt))
  }

  /** The operators and superadmins, by name. */
  async operatorsAndSuperadmins(): Promise<User[]> {
    return User.query().whereIn('role', ['operator', 'superadmin']).orderBy('name', 'asc').orderBy('id', 'asc')
  }

  async find(id: number): Promise<User | null> {
    return User.find(id)
  }

  /** An account read in the caller's transaction. */
  async findIn(trx: TransactionClientContract, id: number): Promise<User | null> {
    return User.query({ client: trx }).where('id', id).first()
  }

  /** The account with this address (as stored: lower-cased), in the caller's transaction if any. */
  async findByEmail(email: string, trx?: TransactionClientContract): Promise<User | null> {
    return User.findBy('email', email, trx ? { client: trx } : undefined)
  }

  /** The account whose address and password these are; throws the auth finder's error otherwise. */
  async verifyCredentials(email: string, password: string): Promise<User> {
    return User.verifyCredentials(email, password)
  }

  /** The superadmins other than `exceptId`. */
  async otherSuperadmins(trx: TransactionClientContract, exceptId: number): Promise<number> {
    const others = await trx.from('users').where('role', 'superadmin').whereNot('id', exceptId).count('* as total').first()
    return Number(others?.total ?? 0)
  }

  /** E-mail, name, role and password (hashed on save) as given; `updatedAt` always. */
  async change(trx: TransactionClientContract, user: User, fields: Partial<Pick<UserRow, 'email' | 'name' | 'role' | 'password'>> & { updatedAt: DateTime }): Promise<void> {
    if (fields.email !== undefined) user.email = fields.email
    if (fields.name !== undefined) user.name = fields.name
    if (fields.role !== undefined) user.role = fields.role
    if (fields.password !== undefined) user.password = fields.password
    user.updatedAt = fields.updatedAt
    await user.useTransaction(trx).save()
  }

  /** A new password (hashed on save) for the account, read in the caller's transaction; throws when it is gone. */
  async changePassword(trx: TransactionClientContract, id: number, password: string, updatedAt: DateTime): Promise<void> {
    const user = await User.query({ client: trx }).where('id', id).firstOrFail()
    user.password = password
    user.updatedAt = updatedAt
    await user.useTransaction(trx).save()
  }

  /** A password hashed already; false when the account is gone. */
  async setPasswordHash(trx: TransactionClientContract, id: number, hashed: string, updatedAt: string): Promise<boolean> {
    const updated = await trx.from('users').where('id', id).update({ password: hashed, updated_at: updatedAt })
    return Number(updated) !== 0
  }

  async remove(trx: TransactionClientContract, user: User): Promise<void> {
    await user.useTransaction(trx).delete()
  }

  /** The roles of these accounts, by id; an account gone is left out. */
  async rolesOf(ids: number[]): Promise<Map<number, string>> {
    const rows = await db.from('users').whereIn('id', ids).select('id', 'role')
    return new Map<number, string>(rows.map((row) => [Number(row.id), row.role]))
  }
}
