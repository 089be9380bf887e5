import type { CommandOptions } from '@adonisjs/core/types/ace'
import { GatewayCommand } from '#core/service/gateway_command'

export default class GatewayRestart extends GatewayCommand {
  static commandName = 'gateway:restart'
  static description = 'Stop the background gateway if it runs, then start it (a prepared restore is applied then)'
  static options: CommandOptions = { startApp: false }

  async run() {
    await this.attempt(async () => {
      const service = this.service()
      await service.stop()
      const pid = await service.start()
      this.logger.success(`gateway restarted (pid ${pid})`)
    })
  }
}
