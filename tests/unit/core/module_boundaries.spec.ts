import { test } from '@japa/runner'
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { cruise } from 'dependency-cruiser'

const require = createRequire(import.meta.url)
const { forbidden } = require('../../../.dependency-cruiser.cjs')

/** Cruises a small tree laid out like app/ with the project's own rules; answers the rules broken. */
async function violationsIn(files: Record<string, string>): Promise<Array<{ rule: string; from: string; to: string }>> {
  const root = await mkdtemp(join(tmpdir(), 'boundaries-'))
  const cwd = process.cwd()
  try {
    for (const [path, text] of Object.entries(files)) {
      await mkdir(dirname(join(root, path)), { recursive: true })
      await writeFile(join(root, path), text)
    }
    // The rules match paths relative to the folder cruised from.
    process.chdir(root)
    const result = await cruise(['app', 'config'].filter((folder) => Object.keys(files).some((path) => path.startsWith(`${folder}/`))), { validate: true, ruleSet: { forbidden }, tsPreCompilationDeps: true })
    const output = result.output as { summary: { violations: Array<{ rule: { name: string }; from: string; to: string }> } }
    return output.summary.violations.map(({ rule, from, to }) => ({ rule: rule.name, from, to }))
  } finally {
    process.chdir(cwd)
    await rm(root, { recursive: true, force: true })
  }
}

test.group('Module boundaries (the checker npm test runs)', () => {
  test('a module reaching into another module behind its public file is refused', async ({ assert }) => {
    const violations = await violationsIn({
      'app/modules/messages/services/send_queue.ts': 'export const queue = 1\n',
      'app/modules/messages/public.ts': "export { queue } from './services/send_queue'\n",
      'app/modules/devices/services/dispatcher.ts': "import { queue } from '../../messages/services/send_queue'\nexport const x = queue\n",
      'app/modules/devices/services/reports.ts': "import { queue } from '../../messages/public'\nexport const y = queue\n",
    })
    assert.deepEqual(violations, [
      {
        rule: 'modules-meet-through-public-files',
        from: 'app/modules/devices/services/dispatcher.ts',
        to: 'app/modules/messages/services/send_queue.ts',
      },
    ])
  })

  test('core importing a module is refused, type-only imports included', async ({ assert }) => {
    const violations = await violationsIn({
      'app/modules/messages/public.ts': 'export type Message = { id: string }\n',
      'app/core/events/catalogue.ts': "import type { Message } from '../../modules/messages/public'\nexport type M = Message\n",
    })
    assert.deepEqual(violations, [
      { rule: 'core-imports-no-module', from: 'app/core/events/catalogue.ts', to: 'app/modules/messages/public.ts' },
    ])
  })

  test("configuration names a module only through its public file (config/auth.ts is the auth module's own)", async ({ assert }) => {
    const violations = await violationsIn({
      'app/modules/auth/services/store.ts': 'export const store = 1\n',
      'app/modules/auth/models/user.ts': 'export default class User {}\n',
      'app/modules/auth/public.ts': "export { store } from './services/store'\n",
      'config/limiter.ts': "import { store } from '../app/modules/auth/services/store'\nexport default store\n",
      'config/mail.ts': "import { store } from '../app/modules/auth/public'\nexport default store\n",
      'config/auth.ts': "export const model = () => import('../app/modules/auth/models/user')\n",
    })
    assert.deepEqual(violations, [
      { rule: 'config-meets-modules-through-public-files', from: 'config/limiter.ts', to: 'app/modules/auth/services/store.ts' },
    ])
  })

  test('a module importing its own files and core is fine', async ({ assert }) => {
    const violations = await violationsIn({
      'app/core/time/clock.ts': 'export const now = () => 0\n',
      'app/modules/devices/services/a.ts': "import { now } from '../../../core/time/clock'\nexport const a = now\n",
      'app/modules/devices/services/b.ts': "import { a } from './a'\nexport const b = a\n",
    })
    assert.deepEqual(violations, [])
  })
})
