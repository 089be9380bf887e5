import { fileURLToPath } from 'node:url'
import type { CommandOptions } from '@adonisjs/core/types/ace'
import { GatewayCommand } from '#core/service/gateway_command'
import { InstallationUpdate } from '#core/service/installation_update'

export default class GatewayUpdate extends GatewayCommand {
  static commandName = 'gateway:update'
  static description = 'Update a git checkout from its upstream (fast-forward only), install, build and restart; undone if the new version does not answer'
  static help = [
    'Refused, with nothing changed, when the installation is not a git checkout (see docs/operations.md, "Updating"),',
    'when tracked files have local changes, or when the branch has diverged from its upstream.',
    'The new version migrates the database at start: take a backup first (`gateway backup`).',
  ]
  static options: CommandOptions = { startApp: false }

  async run() {
    // A refusal or a failure (undone or not) is one line and exit code 1.
    await this.attempt(async () => {
      const update = new InstallationUpdate({ root: fileURLToPath(this.app.appRoot), service: this.service(), log: (line) => this.logger.info(line) })
      await update.run()
    })
  }
}
