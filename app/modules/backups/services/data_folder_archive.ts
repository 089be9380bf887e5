import { closeSync, createWriteStream, openSync } from 'node:fs'
import { readdir } from 'node:fs/promises'
import { pipeline } from 'node:stream/promises'
import * as tar from 'tar'
import { fileStamp } from '#core/time/file_stamp'

/** What an archive leaves out: the running service's pid and temporary files. */
const LEFT_OUT = new Set(['gateway.pid', 'tmp'])

/** `gateway-backup-20261121-093000.tar.gz` (docs/operations.md, The `gateway` command). */
export function archiveNameAt(date: Date): string {
  return `gateway-backup-${fileStamp(date)}.tar.gz`
}

/**
 * The whole data folder as a .tar.gz (database, master key, backups, logs), paths relative to
 * the folder: restoring is emptying the data folder and extracting into it. The archive file is
 * created readable by its owner only (0600) before a byte is written: it holds the master key.
 * The gateway must be stopped while it is written (the command does that).
 */
export async function writeDataFolderArchive(dataDir: string, target: string): Promise<void> {
  // 'wx': never overwrite an older archive; 0600 from the first byte.
  closeSync(openSync(target, 'wx', 0o600))
  const entries = (await readdir(dataDir)).filter((name) => !LEFT_OUT.has(name))
  await pipeline(tar.create({ gzip: true, cwd: dataDir, portable: false }, entries), createWriteStream(target, { flags: 'r+', mode: 0o600 }))
}
