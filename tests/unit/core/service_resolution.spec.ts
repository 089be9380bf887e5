import { test } from '@japa/runner'
import { readFileSync, readdirSync } from 'node:fs'
import { join, relative } from 'node:path'

const MODULES = join(import.meta.dirname, '../../../app/modules')

function typescriptFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name)
    if (entry.isDirectory()) return typescriptFiles(path)
    return entry.name.endsWith('.ts') ? [path] : []
  })
}

/**
 * One way to get a service (docs/modules.md, Getting a service): a module's classes take their
 * services as constructor (or action) parameters and the container builds them; only the
 * module's provider binds and resolves by hand. A `middleware/` file that composes the
 * framework's own middleware is the exception.
 */
test.group('Getting a service', () => {
  test('no module file but its provider and middleware resolves from the container by hand', ({ assert }) => {
    const resolving = typescriptFiles(MODULES)
      .map((file) => relative(MODULES, file))
      .filter((file) => !file.endsWith('_provider.ts') && !file.includes('/middleware/'))
      .filter((file) => /\b(?:container|resolver)\.make\(/.test(readFileSync(join(MODULES, file), 'utf8')))
    assert.deepEqual(resolving, [])
  })
})
