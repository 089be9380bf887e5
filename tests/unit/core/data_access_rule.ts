import { readdir, readFile } from 'node:fs/promises'
import { join, relative } from 'node:path'

/** The folders whose files may hold the module's SQL: its stores, its models and its migrations. */
const MAY_HOLD_SQL = ['stores/', 'models/', 'migrations/']

/**
 * What reaches the database by itself: the database service, the read connection, SQL text, a
 * query builder, or a Lucid model's own queries (a model read, created, saved, deleted or
 * loaded). A model imported for its type only is a row's shape, not a query.
 */
export function reachesTheDatabase(module: string, models: string[]): Array<[string, RegExp]> {
  const model = models.length ? models.join('|') : '(?!)'
  return [
    ['the database service', /@adonisjs\/lucid\/services\/db/],
    ['the read connection', /\breadConnection\b/],
    ['SQL text', /\.rawQuery\(/],
    ['a query builder', /\.query\(\)|\bdb\.from\b|\.from\(\s*['"`]|\.table\(|\.insertQuery\(|\.multiInsert\(|\.knexQuery\b/],
    ['a model query', new RegExp(`\\b(${model})\\.(find|findOrFail|findBy|findMany|create|createMany|all|first|updateOrCreate|firstOrCreate)\\(`)],
    // A relation is loaded by its name: a service's own `load(key)` is not a model load.
    ['a model write or load', /\.(save|delete|refresh)\(\)|\.useTransaction\(|\.(load|preload)\(\s*['"`]/],
    ['a model imported for more than its type', new RegExp(`^import (?!type )[^;]*from '#modules/${module}/models/`)],
  ]
}

/** The module's model classes, named after their files (`device_sim.ts` holds `DeviceSim`). */
async function modelsOf(folder: string): Promise<string[]> {
  const files = await readdir(join(folder, 'models')).catch(() => [] as string[])
  return files
    .filter((file) => file.endsWith('.ts'))
    .map((file) => file.slice(0, -3).split('_').map((word) => word[0].toUpperCase() + word.slice(1)).join(''))
}

/**
 * One data-access style per module (docs/modules.md, Data access): the lines of a module, in the
 * tree at `root`, that reach the database outside its stores, models and migrations.
 */
export async function sqlOutsideStores(root: string, module: string): Promise<string[]> {
  const folder = join(root, 'app/modules', module)
  const patterns = reachesTheDatabase(module, await modelsOf(folder))
  const found: string[] = []
  for (const entry of await readdir(folder, { recursive: true })) {
    if (!entry.endsWith('.ts')) continue
    const path = relative(folder, join(folder, entry))
    if (MAY_HOLD_SQL.some((allowed) => path.startsWith(allowed))) continue
    const lines = (await readFile(join(folder, entry), 'utf8')).split('\n')
    lines.forEach((line, index) => {
      for (const [what, pattern] of patterns) {
        if (pattern.test(line)) found.push(`${path}:${index + 1} (${what}): ${line.trim()}`)
      }
    })
  }
  return found
}
