import { existsSync } from 'node:fs'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { args, BaseCommand } from '@adonisjs/core/ace'
import type { CommandOptions } from '@adonisjs/core/types/ace'
import { moduleFiles, moduleNames, nextMigrationNumber, withEventRow, withProvider } from '#core/scaffold/module_scaffold'

/**
 * Scaffolds a feature module that compiles, passes `npm run boundaries` and serves
 * (docs/adding-a-module.md), with its dashboard page. Outside its folder, its page folder and its
 * tests it changes two files: adonisrc.ts (its provider) and docs/webhooks.md (its public event
 * in the Events table).
 */
export default class MakeModule extends BaseCommand {
  static commandName = 'make:module'
  static description = 'Create a feature module in app/modules/<name>/ with its provider, routes, vocabulary, migration and tests'
  static help = [
    'Writes app/modules/<name>/ (<name>: snake_case, plural: notes, price_lists):',
    '  <name>_provider.ts  registers its vocabulary, then its routes',
    '  public.ts           what other modules may import',
    '  routes.ts           GET, POST /api/v1/<name> (list, create)',
    '  permissions.ts      <name>.read, <name>.change',
    '  errors.ts           <NAME>_LIMIT_REACHED (409)',
    '  events.ts           <item>.created, a public event',
    '  activity.ts         its Activity source and kind (<item>.created)',
    '  settings.ts         Settings > <Name>: max<Name> (default 1000)',
    '  models/ services/ validators/ controllers/',
    '  migrations/         00NN_<name>_create_<name>.ts, its table',
    '  README.md           its routes, settings and event',
    'tests/functional/<name>/: <name>.spec.ts, settings_defaults.ts, expected_callers.ts',
    'dashboard/src/pages/<path>/ (<path>: price-lists): pages.ts (its page in the menu),',
    '  use_<name>.ts, <Name>Page.vue (the list in PagedTable, a form to add one)',
    'Outside them it changes two files: adonisrc.ts (the provider,',
    'after the last module) and docs/webhooks.md (its event row).',
    'Step by step: docs/adding-a-module.md. Then check:',
    '  npx tsc --noEmit && npm run boundaries && npm run typecheck:dashboard',
    '  node ace test functional --files tests/functional/<name>/<name>.spec.ts',
    '',
    'Example: node ace make:module notes',
  ]
  static options: CommandOptions = { startApp: false }

  @args.string({ description: 'The module: snake_case and plural (notes, price_lists)' })
  declare name: string

  async run() {
    let names
    try {
      names = moduleNames(this.name)
    } catch (error) {
      this.logger.error((error as Error).message)
      this.exitCode = 1
      return
    }
    const root = fileURLToPath(this.app.appRoot)
    const path = (relative: string) => `${root.replace(/\/$/, '')}/${relative}`
    if (existsSync(path(`app/modules/${names.module}`))) {
      this.logger.error(`app/modules/${names.module} exists already`)
      this.exitCode = 1
      return
    }
    const files = moduleFiles(names, nextMigrationNumber(root))
    const rcFile = withProvider(await readFile(path('adonisrc.ts'), 'utf8'), names.module)
    const webhooksDoc = withEventRow(await readFile(path('docs/webhooks.md'), 'utf8'), names)
    for (const [relative, text] of Object.entries(files)) {
      await mkdir(dirname(path(relative)), { recursive: true })
      await writeFile(path(relative), text, { flag: 'wx' })
      this.logger.action(`create ${relative}`).succeeded()
    }
    await writeFile(path('adonisrc.ts'), rcFile)
    this.logger.action('update adonisrc.ts (provider)').succeeded()
    await writeFile(path('docs/webhooks.md'), webhooksDoc)
    this.logger.action('update docs/webhooks.md (Events table)').succeeded()
    this.logger.info(`Next: npx tsc --noEmit && npm run boundaries && node ace test functional --files tests/functional/${names.module}/${names.module}.spec.ts`)
  }
}
