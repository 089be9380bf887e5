import { createHash } from 'node:crypto'
import { createReadStream } from 'node:fs'
import { join } from 'node:path'

/** The prepared copy and what was checked about it, in the data folder's restore/. */
export interface PreparedRestore {
  name: string
  sha256: string
  size: number
  preparedAt: string
}

export const restoreFiles = (restoreDir: string) => ({
  copy: join(restoreDir, 'pending.db'),
  manifest: join(restoreDir, 'pending.json'),
  /** What the last start did with a prepared restore, for the gateway to log once it runs. */
  outcome: join(restoreDir, 'last-outcome.json'),
})

export function sha256Of(file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256')
    createReadStream(file)
      .on('data', (chunk) => hash.update(chunk))
      .on('error', reject)
      .on('end', () => resolve(hash.digest('hex')))
  })
}
