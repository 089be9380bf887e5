import { existsSync } from 'node:fs'
import { BaseCommand, args, flags } from '@adonisjs/core/ace'
import type { CommandOptions } from '@adonisjs/core/types/ace'
import { errors as vineErrors } from '@vinejs/vine'
import { ApiError } from '#core/http/api_error'
import { DataFolder } from '#core/data_folder/data_folder'
import { UserService } from '#modules/auth/public'

/** A refusal the operator can act on: printed as one line, exit status 1. */
class Refused extends Error {}

/** More than any password the account rules accept, so a wrong pipe cannot fill memory. */
const MAX_STDIN_BYTES = 4096

/**
 * For an operator locked out of the only account: sets its password straight in the data
 * folder's database (with the gateway running or stopped) and signs its sessions out. Being
 * able to run it is the proof of identity: it needs the machine and the data folder.
 */
export default class UserResetPassword extends BaseCommand {
  static commandName = 'user:reset-password'
  static description = "Set a dashboard account's password from this machine (for a locked-out operator) and sign its sessions out"
  static help = [
    'Asks for the new password twice, without showing it:',
    '  node ace user:reset-password you@example.com',
    'Or reads it from standard input (one line, or the same twice):',
    "  printf '%s\\n' 'a long passphrase' |",
    '    node ace user:reset-password you@example.com --stdin',
    'The password follows the account rules (10 to 128 characters).',
    'Works with the gateway running or stopped, on the data folder',
    'that GATEWAY_DATA_DIR names (default ./data). Every session of',
    'the account is signed out; the Activity log records the reset',
    '(never the password). Exit status 1 when refused: no such',
    'account, a password the rules refuse, two different passwords,',
    'no gateway database in the data folder.',
  ]
  static options: CommandOptions = { startApp: true }

  @args.string({ description: "The account's e-mail address" })
  declare email: string

  @flags.boolean({ description: 'Read the new password from standard input instead of asking for it' })
  declare stdin?: boolean

  async run() {
    try {
      // Checked before the first query, which would create an empty database in a wrong folder.
      const database = DataFolder.current().databaseFile
      if (!existsSync(database)) throw new Refused(`no gateway database at ${database}: set GATEWAY_DATA_DIR to the gateway's data folder`)
      const users = await this.app.container.make(UserService)
      // Before asking for anything: a mistyped address is said at once.
      await users.findByEmail(this.email)
      const password = this.stdin ? await this.#fromStdin() : await this.#fromPrompt()
      const { user, endedSessions } = await users.resetPassword(this.email, password)
      const sessions = endedSessions === 1 ? '1 session' : `${endedSessions} sessions`
      this.logger.success(`password of ${user.name} reset; ${sessions} signed out`)
    } catch (error) {
      const reason = refusalOf(error)
      if (reason === null) throw error
      this.logger.error(reason)
      this.exitCode = 1
    }
  }

  async #fromPrompt(): Promise<string> {
    if (!process.stdin.isTTY) throw new Refused('standard input is not a terminal: pass the new password on it with --stdin')
    const first = await this.prompt.secure('New password')
    const second = await this.prompt.secure('The same password again')
    if (first !== second) throw new Refused('the two passwords differ; nothing changed')
    return first
  }

  async #fromStdin(): Promise<string> {
    let text = ''
    for await (const chunk of process.stdin) {
      text += chunk
      if (Buffer.byteLength(text) > MAX_STDIN_BYTES) throw new Refused('standard input is too long for a password')
    }
    const lines = text.replace(/\r?\n$/, '').split(/\r?\n/)
    if (lines.length === 2 && lines[0] !== lines[1]) throw new Refused('the two passwords differ; nothing changed')
    if (lines.length > 2) throw new Refused('expected the new password on one line (or the same on two lines)')
    return lines[0]
  }
}

/** The one line to print for an expected refusal; null for a fault (printed with its stack). */
function refusalOf(error: unknown): string | null {
  if (error instanceof Refused) return error.message
  if (error instanceof ApiError) return error.message
  if (error instanceof vineErrors.E_VALIDATION_ERROR) {
    const [first] = error.messages as Array<{ message: string }>
    return `new password refused: ${first.message}`
  }
  return null
}
