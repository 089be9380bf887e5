import type { CommandOptions } from '@adonisjs/core/types/ace'
import { GatewayCommand } from '#core/service/gateway_command'

export default class GatewayStop extends GatewayCommand {
  static commandName = 'gateway:stop'
  static description = 'Stop the background gateway: requests finish, jobs stop, the database is checkpointed'
  static options: CommandOptions = { startApp: false }

  async run() {
    await this.attempt(async () => {
      const stopped = await this.service().stop()
      this.logger.info(stopped ? 'gateway stopped' : 'the gateway was not running')
    })
  }
}
