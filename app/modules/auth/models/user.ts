import { BaseModel, column } from '@adonisjs/lucid/orm'
import { compose } from '@adonisjs/core/helpers'
import hash from '@adonisjs/core/services/hash'
import { withAuthFinder } from '@adonisjs/auth/mixins/lucid'
import type { DateTime } from 'luxon'
import type { Role } from '#core/http/access'
import { toIso, utcDateTime } from '#core/database/utc_date_time'
import type { UserResource } from '#modules/auth/schemas'

const AuthFinder = withAuthFinder(() => hash.use('scrypt'), {
  uids: ['email'],
  passwordColumnName: 'password',
})

/** A dashboard account. The password is hashed (scrypt) by the auth finder before saving. */
export default class User extends compose(BaseModel, AuthFinder) {
  static table = 'users'

  @column({ isPrimary: true, serialize: (value: number) => String(value) })
  declare id: number

  @column()
  declare email: string

  @column()
  declare name: string

  @column()
  declare role: Role

  @column({ serializeAs: null })
  declare password: string

  @utcDateTime()
  declare createdAt: DateTime

  @utcDateTime()
  declare updatedAt: DateTime

  /** The User resource (schemas.ts): what `serialize()` gave, typed; never the password. */
  toResource(): UserResource {
    return { id: String(this.id), email: this.email, name: this.name, role: this.role, createdAt: toIso(this.createdAt), updatedAt: toIso(this.updatedAt) }
  }
}
