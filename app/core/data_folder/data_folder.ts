import { randomBytes, hkdfSync } from 'node:crypto'
import { chmodSync, closeSync, mkdirSync, openSync, readFileSync, statSync, writeSync } from 'node:fs'
import { isAbsolute, join, resolve } from 'node:path'

const MASTER_KEY_BYTES = 32

/**
 * The gateway's data folder (`GATEWAY_DATA_DIR`, default `./data`): the database, the master
 * key, backups and logs. Everything the gateway knows lives here and nowhere else.
 */
export class DataFolder {
  readonly root: string

  constructor(root: string) {
    this.root = isAbsolute(root) ? root : resolve(process.cwd(), root)
  }

  static #current?: DataFolder

  /**
   * The data folder this process runs on, read from `GATEWAY_DATA_DIR` on first use and fixed
   * from then on (the test entry point sets a fresh temporary folder before anything asks).
   */
  static current(): DataFolder {
    DataFolder.#current ??= new DataFolder(process.env.GATEWAY_DATA_DIR?.trim() || './data')
    return DataFolder.#current
  }

  get databaseFile() {
    return join(this.root, 'gateway.db')
  }
  get masterKeyFile() {
    return join(this.root, 'secret.key')
  }
  /** At most one prepared restore, applied at the next start (docs/operations.md, Restoring a backup). */
  get restoreDir() {
    return join(this.root, 'restore')
  }

  get backupsDir() {
    return join(this.root, 'backups')
  }
  get logsDir() {
    return join(this.root, 'logs')
  }
  get logFile() {
    return join(this.logsDir, 'gateway.log')
  }

  /**
   * Creates what is missing: the folders (SQLite cannot open a file in a folder that does not
   * exist) and the master key. Safe to call at every start.
   */
  prepare(): void {
    for (const dir of [this.root, this.logsDir]) {
      try {
        mkdirSync(dir, { recursive: true, mode: 0o700 })
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code ?? 'error'
        throw new DataFolderError(`the data folder cannot be prepared: ${dir} cannot be made a folder (${code})`)
      }
    }
    // The backups folder does not keep the gateway from serving SMS: when it cannot be made
    // (a file in its place), each backup attempt fails with that reason (503, Activity log, alert).
    try {
      mkdirSync(this.backupsDir, { recursive: true, mode: 0o700 })
    } catch {}
    this.#ensureMasterKey()
  }

  /** The 32-byte master key. Never stored in the database, never logged. */
  readMasterKey(): Buffer {
    const key = readFileSync(this.masterKeyFile)
    if (key.length !== MASTER_KEY_BYTES) {
      throw new Error(`${this.masterKeyFile} must hold exactly ${MASTER_KEY_BYTES} bytes`)
    }
    return key
  }

  /**
   * A sub-key for one purpose, so the master key itself is never used directly and a leaked
   * sub-key (the framework's app key, say) reveals nothing about the others.
   */
  deriveKey(purpose: string, length = 32): Buffer {
    return Buffer.from(hkdfSync('sha256', this.readMasterKey(), Buffer.alloc(0), purpose, length))
  }

  #ensureMasterKey() {
    let fd: number
    try {
      // 'wx' fails when the file exists, so two starts racing never overwrite a key.
      fd = openSync(this.masterKeyFile, 'wx', 0o600)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      const mode = statSync(this.masterKeyFile).mode & 0o777
      if (mode !== 0o600) chmodSync(this.masterKeyFile, 0o600)
      return
    }
    try {
      writeSync(fd, randomBytes(MASTER_KEY_BYTES))
    } finally {
      closeSync(fd)
    }
  }
}

/** The data folder cannot be used: an entry point prints the message as one line and exits 1. */
export class DataFolderError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'DataFolderError'
  }
}
