import { test } from '@japa/runner'
import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'

const MODULES = join(import.meta.dirname, '../../../app/modules')

/** The names a module's public file exports (`export { A, type B } from`, `export class C`). */
function exportedNames(source: string): string[] {
  const listed = [...source.matchAll(/export\s+(?:type\s+)?\{([^}]*)\}/g)].flatMap((match) =>
    match[1].split(',').map((name) => name.trim().replace(/^type\s+/, '').split(/\s+as\s+/).pop()!).filter(Boolean)
  )
  const declared = [...source.matchAll(/export\s+(?:abstract\s+)?(?:class|function|const|interface|type)\s+(\w+)/g)].map((match) => match[1])
  return [...listed, ...declared]
}

/** `contact_imports` → how a name carrying the module's name spells it: `contactimport`. */
function nameOf(module: string): string {
  return module
    .split('_')
    .map((word) => word.replace(/s$/, ''))
    .join('')
}

/**
 * The messages module offers what it is, not a door per caller (docs/modules.md, the rules): a
 * facade named after the module that calls it (`CampaignSends`, `SenderActions`) grows a second
 * way to do the same thing for each new caller.
 */
test.group('The messages module’s public names', () => {
  test('name no other module', ({ assert }) => {
    // An export is a form the messages are read in (the rows of the CSV or JSON file), named
    // for what it is; the exports module streams it.
    const others = readdirSync(MODULES).filter((module) => !['messages', 'message_bulk', 'exports'].includes(module))
    const names = exportedNames(readFileSync(join(MODULES, 'messages', 'public.ts'), 'utf8'))
    assert.isAbove(names.length, 10)
    const namedAfterAnother = names.filter((name) => others.some((module) => name.toLowerCase().includes(nameOf(module))))
    assert.deepEqual(namedAfterAnother, [])
  })

  test('the check sees a name that does', ({ assert }) => {
    const names = exportedNames(`export { CampaignMessages } from 'x'\nexport { type ContactRow, queueMessages } from 'y'`)
    assert.deepEqual(names, ['CampaignMessages', 'ContactRow', 'queueMessages'])
    assert.deepEqual(names.filter((name) => ['campaigns', 'contact_imports', 'contacts'].some((module) => name.toLowerCase().includes(nameOf(module)))), ['CampaignMessages', 'ContactRow'])
  })
})
