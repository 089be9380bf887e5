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

@inject()
export default class BackupsController {
  constructor(
    private engine: BackupEngine,
    private catalogue: BackupCatalogue,
    private restores: RestorePreparation,
    private backupSchedule: BackupSchedule,
    private attemptLog: BackupAttemptStore
  ) {}

  /** 201 with the attempt; 503 BACKUP_FAILED (the attempt in details) when it failed. */
  async store({ response, caller }: HttpContext) {
    const attempt = await this.engine.run('manual', caller!)
    if (attempt.outcome === 'failed') throw new ApiError('BACKUP_FAILED', `The backup failed: ${attempt.reason}`, { attempt })
    return response.created(attempt)
  }

  async index(): Promise<PageOf<typeof backupFileSchema>> {
    return { data: await this.catalogue.list(), nextCursor: null }
  }

  /** 202 {restartRequired: true}: checked and prepared; nothing is replaced before the next start. */
  async prepareRestore({ params, response }: HttpContext) {
    const prepared = await this.restores.prepare(backupNameParam(params.name))
    return response.accepted(prepared)
  }

  async restoreStatus() {
    return this.restores.status()
  }

  async cancelRestore({ response }: HttpContext) {
    await this.restores.cancel()
    return response.noContent()
  }

  async schedule() {
    return this.backupSchedule.state()
  }

  async attempts(ctx: HttpContext) {
    return this.attemptLog.page(input(ctx, 'listBackupAttempts').query)
  }

  async download({ params, response }: HttpContext) {
    const name = backupNameParam(params.name)
    const path = await this.catalogue.pathOf(name)
    const { size } = await stat(path)
    response.header('content-type', 'application/vnd.sqlite3')
    response.header('content-length', String(size))
    response.header('content-disposition', `attachment; filename="${name}"`)
    response.stream(createReadStream(path))
  }
}
