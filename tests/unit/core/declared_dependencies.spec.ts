import { test } from '@japa/runner'
import { readdirSync, readFileSync } from 'node:fs'
import { builtinModules } from 'node:module'
import { join, relative } from 'node:path'
import ts from 'typescript'

const root = join(import.meta.dirname, '..', '..', '..')
/** What an installation runs and builds (`npm install --omit=dev` leaves only dependencies). */
const shippedFolders = ['app', 'bin', 'commands', 'config', 'database', 'providers', 'start', 'agent']
/** The test runner's entry point sits in bin/ but is no part of an installation. */
const notShipped = new Set([join('bin', 'test.ts')])

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.(ts|js|mjs)$/.test(entry.name) && !entry.name.endsWith('.d.ts'))
    .map((entry) => join(entry.parentPath, entry.name))
}

/** `@scope/name/sub` → `@scope/name`, `name/sub` → `name`. */
function packageOf(specifier: string): string {
  const parts = specifier.split('/')
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]
}

function isBare(specifier: string): boolean {
  if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('#')) return false
  if (specifier.startsWith('node:') || builtinModules.includes(specifier.split('/')[0])) return false
  return true
}

test.group('Declared dependencies', () => {
  test('every package the shipped code imports (types included: the build runs on install) is a dependency', ({ assert }) => {
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
    const declared = new Set(Object.keys(manifest.dependencies ?? {}))
    const undeclared = new Map<string, string>()
    for (const folder of shippedFolders) {
      for (const file of sourceFiles(join(root, folder))) {
        if (notShipped.has(relative(root, file))) continue
        // TypeScript's own scanner: static, type-only and dynamic imports, never a comment.
        const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true)
        for (const { fileName } of importedFiles) {
          if (!isBare(fileName)) continue
          const name = packageOf(fileName)
          if (!declared.has(name) && !undeclared.has(name)) undeclared.set(name, relative(root, file))
        }
      }
    }
    assert.deepEqual(Object.fromEntries(undeclared), {}, 'imported but not in package.json dependencies (package: first importer)')
  })
})
