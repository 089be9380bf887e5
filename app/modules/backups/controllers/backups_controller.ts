import { createReadStream } from 'node:fs'
import { stat } from 'node:fs/promises'
import type { HttpContext } from '@adonisjs/core/http'
import app from '@adonisjs/core/services/app'
import { ApiError } from '#core/http/api_error'
import { BackupEngine } from '#modules/backups/services/backup_engine'
import { BackupCatalogue } from '#modules/backups/services/backup_catalogue'
import { listAttempts } from '#modules/backups/services/backup_attempts'
import { backupNameParam } from '#modules/backups/services/backup_names'
import { BackupSchedule } from '#modules/backups/services/backup_schedule'
import { RestorePreparation } from '#modules/backups/services/restore_preparation'
import { routeInputs } from '#core/contract/route_contract'
import type { BackupRoutes } from '#modules/backups/routes'
import type { PageOf } from '#core/contract/schemas'
import type { backupFileSchema } from '#modules/backups/schemas'

const input = routeInputs<BackupRoutes>()

export default class BackupsController {
  /** 201 with the attempt; 503 BACKUP_FAILED (the attempt in details) when it failed. */
  async store({ response }: HttpContext) {
    const attempt = await (await app.container.make(BackupEngine)).run('manual')
    if (attempt.outcome === 'failed') throw new ApiError('BACKUP_FAILED', `The backup failed: ${attempt.reason}`, { attempt })
    return response.created(attempt)
  }

  async index(): Promise<PageOf<typeof backupFileSchema>> {
    return { data: await (await app.container.make(BackupCatalogue)).list(), nextCursor: null }
  }

  /** 202 {restartRequired: true}: checked and prepared; nothing is replaced before the next start. */
  async prepareRestore({ params, response }: HttpContext) {
    const prepared = await (await app.container.make(RestorePreparation)).prepare(backupNameParam(params.name))
    return response.accepted(prepared)
  }

  async restoreStatus() {
    return (await app.container.make(RestorePreparation)).status()
  }

  async cancelRestore({ response }: HttpContext) {
    await (await app.container.make(RestorePreparation)).cancel()
    return response.noContent()
  }

  async schedule() {
    return (await app.container.make(BackupSchedule)).state()
  }

  async attempts(ctx: HttpContext) {
    return listAttempts(input(ctx, 'listBackupAttempts').query)
  }

  async download({ params, response }: HttpContext) {
    const name = backupNameParam(params.name)
    const path = await (await app.container.make(BackupCatalogue)).pathOf(name)
    const { size } = await stat(path)
    response.header('content-type', 'application/vnd.sqlite3')
    response.header('content-length', String(size))
    response.header('content-disposition', `attachment; filename="${name}"`)
    response.stream(createReadStream(path))
  }
}
