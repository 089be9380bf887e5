import vine from '@vinejs/vine'
import { roles } from '#core/http/access'

const email = () => vine.string().trim().email().maxLength(254)
/** Long enough to resist guessing, short enough that scrypt work stays bounded. */
const password = () => vine.string().minLength(10).maxLength(128)
const name = () => vine.string().trim().minLength(1).maxLength(80)

export const setUpValidator = vine.compile(vine.object({ email: email(), password: password(), name: name() }))

export const signInValidator = vine.compile(
  vine.object({ email: vine.string().trim().maxLength(254), password: vine.string().maxLength(128) })
)

export const createUserValidator = vine.compile(
  vine.object({ email: email(), password: password(), name: name(), role: vine.enum(roles) })
)

export const updateUserValidator = vine.compile(
  vine.object({
    email: email().optional(),
    password: password().optional(),
    name: name().optional(),
    role: vine.enum(roles).optional(),
  })
)

/** A person's own password: the current one (checked by the service) and a new one, different. */
export const changeOwnPasswordValidator = vine.compile(
  vine.object({
    currentPassword: vine.string().maxLength(128),
    newPassword: password().notSameAs('currentPassword'),
  })
)

/** A password set from the machine (`node ace user:reset-password`): the account rules. */
export const resetPasswordValidator = vine.compile(vine.object({ password: password() }))
