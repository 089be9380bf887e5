import { createReadStream } from 'node:fs'
import { stat } from 'node:fs/promises'
import type { HttpContext } from '@adonisjs/core/http'
import { inject } from '@adonisjs/core'
import { ApiError } from '#core/http/api_error'
import { BackupEngine } from '#modules/backups/services/backup_engine'
import { BackupCatalogue } from '#modules/backups/services/backup_catalogue'
import { BackupAttemptStore } from '#modules/backups/stores/backup_attempt_store'
import { backupNameParam } from '#modules/backups/services/backup_names'
import { BackupSchedule } from '#modules/backups/services/backup_schedule'
import { RestorePreparation } from '#modules/backups/services/restore_preparation'
import { routeInputs } from '#core/contract/route_contract'
import type { BackupRoutes } from '#modules/backups/routes'
import type { PageOf } from '#core/contract/schemas'
import type { backupFileSchema } from '#modules/backups/schemas'

const input = routeInputs<BackupRoutes>()

/**
 * Each action asks for the services it uses (method injection): they are resolved for each
 * request, so a test that swaps one in the container (a backup engine on a test folder) is seen.
 */
export default class BackupsController {
  /** 201 with the attempt; 503 BACKUP_FAILED (the attempt in details) when it failed. */
  @inject()
  async store({ response }: HttpContext, engine: BackupEngine) {
    const attempt = await engine.run('manual')
    if (attempt.outcome === 'failed') throw new ApiError('BACKUP_FAILED', `The backup failed: ${attempt.reason}`, { attempt })
    return response.created(attempt)
  }

  @inject()
  async index(_ctx: HttpContext, catalogue: BackupCatalogue): Promise<PageOf<typeof backupFileSchema>> {
    return { data: await catalogue.list(), nextCursor: null }
  }

  /** 202 {restartRequired: true}: checked and prepared; nothing is replaced before the next start. */
  @inject()
  async prepareRestore({ params, response }: HttpContext, restore: RestorePreparation) {
    const prepared = await restore.prepare(backupNameParam(params.name))
    return response.accepted(prepared)
  }

  @inject()
  async restoreStatus(_ctx: HttpContext, restore: RestorePreparation) {
    return restore.status()
  }

  @inject()
  async cancelRestore({ response }: HttpContext, restore: RestorePreparation) {
    await restore.cancel()
    return response.noContent()
  }

  @inject()
  async schedule(_ctx: HttpContext, schedule: BackupSchedule) {
    return schedule.state()
  }

  @inject()
  async attempts(ctx: HttpContext, attempts: BackupAttemptStore) {
    return attempts.page(input(ctx, 'listBackupAttempts').query)
  }

  @inject()
  async download({ params, response }: HttpContext, catalogue: BackupCatalogue) {
    const name = backupNameParam(params.name)
    const path = await catalogue.pathOf(name)
    const { size } = await stat(path)
    response.header('content-type', 'application/vnd.sqlite3')
    response.header('content-length', String(size))
    response.header('content-disposition', `attachment; filename="${name}"`)
    response.stream(createReadStream(path))
  }
}
