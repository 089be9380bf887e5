import { fileURLToPath } from 'node:url'
import { BaseCommand } from '@adonisjs/core/ace'
import { DataFolder } from '#core/data_folder/data_folder'
import { GatewayProcess } from '#core/service/gateway_process'

/**
 * What the `gateway` commands share: the background service of this installation and data
 * folder (GATEWAY_DATA_DIR, default ./data of the current folder), checked on PORT (default 3000).
 */
export abstract class GatewayCommand extends BaseCommand {
  protected service(): GatewayProcess {
    return new GatewayProcess({
      appRoot: fileURLToPath(this.app.appRoot),
      folder: DataFolder.current(),
      port: Number(process.env.PORT || 3000),
    })
  }

  /** Runs an operation; a failure is one plain line and exit code 1, not a stack. */
  protected async attempt(operation: () => Promise<void>) {
    try {
      await operation()
    } catch (error) {
      this.logger.error((error as Error).message)
      this.exitCode = 1
    }
  }
}
