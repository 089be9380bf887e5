import { randomUUID } from 'node:crypto'
import { mkdir, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { DataFolder } from '#core/data_folder/data_folder'
import { snapshotDatabase } from '#core/database/database_snapshot'

/**
 * GET /export/database: a fresh consistent copy of the whole database (accounts included), in a
 * temporary file of the data folder (it needs about the database's size of free space), removed
 * once served or abandoned.
 */
export async function freshDatabaseCopy(): Promise<{ file: string; remove: () => Promise<void> }> {
  const folder = DataFolder.current()
  const temporary = join(folder.root, 'tmp')
  await mkdir(temporary, { recursive: true, mode: 0o700 })
  const file = join(temporary, `export-${randomUUID()}.db`)
  const remove = () => rm(file, { force: true })
  try {
    await snapshotDatabase(folder.databaseFile, file)
  } catch (error) {
    await remove()
    throw error
  }
  return { file, remove }
}
