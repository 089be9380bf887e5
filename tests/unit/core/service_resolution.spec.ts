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
/**
 * A class that takes its services and settings as one object of dependencies (`deps`, an
 * interface named `…Dependencies` or `…Deps`) cannot be built by the container.
 */
const OBJECT_OF_DEPENDENCIES = /constructor\(\s*(?:(?:private|protected|public|readonly)\s+)*deps\b|\binterface \w+(?:Dependencies|Deps)\b/

test.group('Getting a service', () => {
  test('no module file but its provider and middleware resolves from the container by hand', ({ assert }) => {
    const resolving = typescriptFiles(MODULES)
      .map((file) => relative(MODULES, file))
      .filter((file) => !file.endsWith('_provider.ts') && !file.includes('/middleware/'))
      .filter((file) => /\b(?:container|resolver)\.make\(/.test(readFileSync(join(MODULES, file), 'utf8')))
    assert.deepEqual(resolving, [])
  })

  test('no module class takes its dependencies as one object: each is a constructor parameter', ({ assert }) => {
    const taking = typescriptFiles(MODULES)
      .filter((file) => OBJECT_OF_DEPENDENCIES.test(readFileSync(file, 'utf8')))
      .map((file) => relative(MODULES, file))
    assert.deepEqual(taking, [])
  })

  test('the check catches an object of dependencies', ({ assert }) => {
    for (const text of ['constructor(private deps: EngineDependencies) {}', 'constructor(\n    private readonly deps: {', 'export interface BackupEngineDeps {']) {
      assert.isTrue(OBJECT_OF_DEPENDENCIES.test(text), text)
    }
    for (const text of ['constructor(private config: LicenseConfig) {}', 'constructor(private depsCount: number) {}']) {
      assert.isFalse(OBJECT_OF_DEPENDENCIES.test(text), text)
    }
  })
})
