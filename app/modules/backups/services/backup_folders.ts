/**
 * Where the backups module reads and writes: the live database, backups/, restore/ and the
 * migrations a copy's schema is checked against. A value the provider binds from the data
 * folder, so the services taking it are built by the container.
 */
export class BackupFolders {
  constructor(
    readonly databaseFile: string,
    readonly backupsDir: string,
    readonly restoreDir: string,
    readonly migrationsDir: string
  ) {}
}
