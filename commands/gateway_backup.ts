import { resolve } from 'node:path'
import type { CommandOptions } from '@adonisjs/core/types/ace'
import { DataFolder } from '#core/data_folder/data_folder'
import { archiveNameAt, writeDataFolderArchive } from '#modules/backups/services/data_folder_archive'
import { GatewayCommand } from '#core/service/gateway_command'

export default class GatewayBackup extends GatewayCommand {
  static commandName = 'gateway:backup'
  static description = 'Archive the whole data folder (database, master key, backups) as gateway-backup-<YYYYMMDD-HHMMSS>.tar.gz here'
  static help = [
    'Run as root. Stops the gateway for the copy (seconds for a normal database), writes the archive in',
    'the current folder, readable by root only, and starts the gateway again. Never deletes old archives.',
    'To restore: stop the gateway, empty the data folder, `tar -xzf <archive> -C <data folder>`, start.',
  ]
  static options: CommandOptions = { startApp: false }

  async run() {
    if (process.getuid?.() !== 0) {
      this.logger.error('gateway backup must run as root: the archive holds the master key')
      this.exitCode = 1
      return
    }
    await this.attempt(async () => {
      const service = this.service()
      const wasRunning = await service.stop()
      // The folder the operator ran `gateway backup` from (bin/gateway.js runs Ace from the app folder).
      const target = resolve(process.env.GATEWAY_COMMAND_CWD ?? process.cwd(), archiveNameAt(new Date()))
      try {
        await writeDataFolderArchive(DataFolder.current().root, target)
        this.logger.success(`archive written: ${target}`)
      } finally {
        if (wasRunning) {
          const pid = await service.start()
          this.logger.info(`gateway started again (pid ${pid})`)
        }
      }
    })
  }
}
