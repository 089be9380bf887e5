import { test } from '@japa/runner'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'

/**
 * A failed call in the dashboard shows its error where the action was (docs/dashboard.md,
 * "Errors"). These are the shapes that hide one: an empty handler (`() => {}`), a `.catch` that
 * answers a constant, a `catch` block with nothing in it (or only `return null`). Each may stay
 * only with a comment saying `why:` ignoring is right, on its line, in the block, or in the three
 * lines above.
 */
const root = join(import.meta.dirname, '../../../dashboard/src')
const generated = new Set(['api/schema.d.ts', 'api/operations.ts'])

const shapes: Array<{ name: string; pattern: RegExp }> = [
  { name: 'empty handler', pattern: /\(\s*[\w\s,:]*\)\s*=>\s*\{\s*\}/g },
  { name: '.catch answering a constant', pattern: /\.catch\(\s*(?:\(\s*\w*\s*\)|\w+)\s*=>\s*(?:undefined|null|false|void 0|\{\s*\})\s*\)/g },
  {
    name: 'empty catch block',
    pattern: /\bcatch\s*(?:\([^)]*\))?\s*\{(?:\s|\/\/[^\n]*|\/\*[\s\S]*?\*\/)*(?:return(?:\s+(?:null|undefined|false))?\s*;?)?(?:\s|\/\/[^\n]*|\/\*[\s\S]*?\*\/)*\}/g,
  },
]

export interface Swallowed {
  line: number
  shape: string
  text: string
}

/** The places of `source` that hide a failure without a `why:` comment. */
export function swallowedErrors(source: string): Swallowed[] {
  const lines = source.split('\n')
  const found: Swallowed[] = []
  for (const { name, pattern } of shapes) {
    for (const match of source.matchAll(pattern)) {
      const line = source.slice(0, match.index).split('\n').length
      const around = [...lines.slice(Math.max(0, line - 4), line - 1), match[0], lines[line - 1]].join('\n')
      if (!/\bwhy:/.test(around)) found.push({ line, shape: name, text: match[0].replace(/\s+/g, ' ') })
    }
  }
  return found
}

function sourceFiles(folder: string): string[] {
  return readdirSync(folder).flatMap((entry) => {
    const path = join(folder, entry)
    if (statSync(path).isDirectory()) return sourceFiles(path)
    return /\.(ts|vue)$/.test(entry) && !generated.has(relative(root, path)) ? [path] : []
  })
}

test.group('Dashboard: no swallowed error', () => {
  test('the check finds each shape, and lets a why: comment through', ({ assert }) => {
    assert.lengthOf(swallowedErrors('void read().then((rows) => show(rows), () => {})'), 1)
    assert.lengthOf(swallowedErrors('void read().catch(() => null)'), 1)
    assert.lengthOf(swallowedErrors('try {\n  await read()\n} catch {\n  // nothing to do\n}'), 1)
    assert.lengthOf(swallowedErrors('try {\n  await read()\n} catch (error) {\n  return null\n}'), 1)
    assert.lengthOf(swallowedErrors('try {\n  await read()\n} catch {\n  // why: a best-effort read\n}'), 0)
    assert.lengthOf(swallowedErrors('// why: the stream reconnects by itself\nvoid subscribe().catch(() => undefined)'), 0)
    assert.lengthOf(swallowedErrors('void read().then(show, reads.caught)'), 0)
    assert.lengthOf(swallowedErrors('} catch (error) {\n  problem.value = asProblem(error)\n}'), 0)
  })

  test('no file of dashboard/src hides a failed call without saying why', ({ assert }) => {
    const files = sourceFiles(root)
    assert.isAbove(files.length, 50)
    const offenders = files.flatMap((path) =>
      swallowedErrors(readFileSync(path, 'utf8')).map((found) => `${relative(root, path)}:${found.line} ${found.shape}: ${found.text}`)
    )
    assert.deepEqual(offenders, [])
  })
})
