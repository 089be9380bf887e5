import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { CommandOptions } from '@adonisjs/core/types/ace'
import { GatewayCommand } from '#core/service/gateway_command'

export default class GatewayUpdate extends GatewayCommand {
  static commandName = 'gateway:update'
  static description = 'Install the newest published version (npm install -g <package>@latest) and restart the gateway'
  static help = [
    'Uses your npm configuration (registry, proxy). The data folder is left as it is; the new version',
    'migrates the database at start. Take a backup first: `gateway backup`.',
  ]
  static options: CommandOptions = { startApp: false }

  async run() {
    await this.attempt(async () => {
      const service = this.service()
      const { name, version } = JSON.parse(readFileSync(join(fileURLToPath(this.app.appRoot), 'package.json'), 'utf8'))
      this.logger.info(`installed: ${name} ${version}; installing ${name}@latest`)
      const wasRunning = await service.stop()
      const npm = spawnSync('npm', ['install', '--global', `${name}@latest`], { stdio: 'inherit' })
      if (npm.status !== 0) {
        this.logger.error('npm could not install the newest version: the installed one stays')
        this.exitCode = 1
      }
      // Whatever npm did, a gateway that ran before runs again.
      if (wasRunning || npm.status === 0) {
        const pid = await service.start()
        this.logger.success(`gateway started (pid ${pid})`)
      }
    })
  }
}
