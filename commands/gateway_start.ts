import type { CommandOptions } from '@adonisjs/core/types/ace'
import { GatewayCommand } from '#core/service/gateway_command'

export default class GatewayStart extends GatewayCommand {
  static commandName = 'gateway:start'
  static description = 'Start the gateway in the background (pid in <data>/gateway.pid, log in <data>/logs/gateway.log)'
  static help = ['Returns once GET /health answers. Run `npm run build` (or `npm start` once) first.']
  static options: CommandOptions = { startApp: false }

  async run() {
    await this.attempt(async () => {
      const service = this.service()
      const pid = await service.start()
      this.logger.success(`gateway started (pid ${pid}); logs: gateway logs`)
    })
  }
}
