import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { migrationFolders, isMigrationFile } from '#core/database/migration_folders'

/**
 * The files `node ace make:module <name>` writes (commands/make_module.ts,
 * docs/adding-a-module.md): a module that compiles, passes `npm run boundaries`, serves two
 * routes (list and create) behind its own permissions, and brings one error kind, one public
 * event, the Activity source and kind it writes (activity.ts), one settings section with one
 * field (drawn by the dashboard's Settings page from its schema), a model, a store holding its SQL, a service, a validator, a controller, a
 * migration of its own table, its functional test, the documented defaults of its settings,
 * the expected callers of its routes (which the permission matrix reads) and its dashboard page
 * (a list of its items and a form to add one, registered by its page folder's pages.ts). Core
 * names no module: the module's name is only text here.
 */
export interface ModuleNames {
  /** snake_case, plural: the folder, the table, the settings section (`notes`, `price_lists`). */
  module: string
  /** The route path segment (`notes`, `price-lists`). */
  path: string
  /** PascalCase of the module (`Notes`, `PriceLists`). */
  Module: string
  /** camelCase of the module (`notes`, `priceLists`). */
  moduleCamel: string
  /** snake_case singular: the model's file and the event's family prefix (`note`, `price_list`). */
  item: string
  /** PascalCase singular: the model (`Note`, `PriceList`). */
  Item: string
  /** SCREAMING_SNAKE of the module: the error kind's prefix (`NOTES`). */
  MODULE: string
  /** The words of the module for sentences (`notes`, `price lists`). */
  words: string
}

export const MODULE_NAME = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/

export function moduleNames(module: string): ModuleNames {
  if (!MODULE_NAME.test(module)) throw new Error(`A module name is snake_case letters and digits, such as notes or price_lists (not ${JSON.stringify(module)})`)
  const parts = module.split('_')
  const pascal = (words: string[]) => words.map((word) => word[0].toUpperCase() + word.slice(1)).join('')
  const last = parts.at(-1)!
  const singularLast = last.endsWith('s') && last.length > 1 ? last.slice(0, -1) : `${last}_item`
  const itemParts = [...parts.slice(0, -1), ...singularLast.split('_')]
  return {
    module,
    path: parts.join('-'),
    Module: pascal(parts),
    moduleCamel: parts[0] + pascal(parts.slice(1)),
    item: itemParts.join('_'),
    Item: pascal(itemParts),
    MODULE: module.toUpperCase(),
    words: parts.join(' '),
  }
}

/** The next migration number: one after the highest of every migrations folder (numbers are unique across folders). */
export function nextMigrationNumber(appRoot: string): string {
  let highest = 0
  for (const folder of migrationFolders(appRoot)) {
    const path = join(appRoot, folder)
    if (!existsSync(path)) continue
    for (const file of readdirSync(path, { recursive: true }) as string[]) {
      const number = /(?:^|\/)(\d{4})_[^/]*$/.exec(file)?.[1]
      if (isMigrationFile(file) && number) highest = Math.max(highest, Number(number))
    }
  }
  return String(highest + 1).padStart(4, '0')
}

/** Every file of a new module, relative to the application root. */
export function moduleFiles(names: ModuleNames, migrationNumber: string): Record<string, string> {
  const { module, path, Module, moduleCamel, item, Item, MODULE, words } = names
  const dir = `app/modules/${module}`
  const limitField = `max${Module}`
  const event = `${item}.created`
  const errorKind = `${MODULE}_LIMIT_REACHED`
  const Words = words.charAt(0).toUpperCase() + words.slice(1)
  const itemCamel = item.replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase())
  const itemWords = item.replace(/_/g, ' ')
  // The dashboard's page folders are named like its paths (api-keys, technical-log).
  const pages = `dashboard/src/pages/${path}`
  return {
    [`${dir}/${module}_provider.ts`]: `import type { ApplicationService } from '@adonisjs/core/types'
import { RouteRegistry } from '#core/contract/route_registry'
import { registerVocabulary } from '#core/contract/module_vocabulary'
import { ${moduleCamel}Errors } from '#modules/${module}/errors'
import { ${moduleCamel}Events } from '#modules/${module}/events'
import { ${moduleCamel}Permissions } from '#modules/${module}/permissions'
import { ${moduleCamel}Settings } from '#modules/${module}/settings'
import { ${moduleCamel}Activity } from '#modules/${module}/activity'
import { ${moduleCamel}Routes } from '#modules/${module}/routes'

/** The ${words} module (app/modules/${module}/README.md). */
export default class ${Module}Provider {
  constructor(protected app: ApplicationService) {}

  /** Vocabulary first: every provider's register() runs before any start() (docs/adding-a-module.md). */
  register() {
    registerVocabulary({
      errors: ${moduleCamel}Errors,
      permissions: ${moduleCamel}Permissions,
      events: ${moduleCamel}Events,
      settings: ${moduleCamel}Settings,
      activity: ${moduleCamel}Activity,
    })
  }

  async start() {
    const registry = await this.app.container.make(RouteRegistry)
    registry.add(${moduleCamel}Routes(registry))
  }
}
`,
    [`${dir}/public.ts`]: `/**
 * What other modules may import from the ${words} module (docs/adding-a-module.md): its service and
 * the shape of one of its items. Everything else in this folder is its own business.
 */
export { ${Module}Service, type ${Item}Fields } from '#modules/${module}/services/${module}_service'
`,
    [`${dir}/permissions.ts`]: `import { access } from '#core/http/access'
import { definePermissions } from '#core/http/permissions'

/**
 * ${Module} are read with the read scope and created with admin; in the dashboard operators and
 * superadmins create them, read-only accounts read.
 */
export const ${moduleCamel}Permissions = definePermissions({
  '${module}.read': access.read('read'),
  '${module}.change': access.write('admin', ['operator', 'superadmin']),
})
`,
    [`${dir}/errors.ts`]: `import { defineErrorKinds, type KindsOf } from '#core/http/api_error'

/** Refusals only the ${words} module answers (app/modules/${module}/README.md). */
export const ${moduleCamel}Errors = defineErrorKinds({
  ${errorKind}: {
    status: 409,
    code: '${errorKind}',
    description: 'As many ${words} as Settings > ${Module} allows (${limitField}) exist already',
  },
})

declare module '#core/http/api_error' {
  interface ApiErrorKinds extends KindsOf<typeof ${moduleCamel}Errors> {}
}
`,
    [`${dir}/events.ts`]: `import { definePublicEvents, type NamesOf } from '#core/events/public_events'

/** Public events of the ${words} module (docs/webhooks.md, Events): identifiers only. */
export const ${moduleCamel}Events = definePublicEvents({
  '${event}': { family: '${Module}', description: 'A ${item.replace(/_/g, ' ')} was created' },
})

declare module '#core/events/public_events' {
  interface PublicEventNames extends NamesOf<typeof ${moduleCamel}Events> {}
}
`,
    [`${dir}/activity.ts`]: `import { defineActivity } from '#core/activity/activity_vocabulary'

/**
 * What the ${words} module writes to the Activity log (source \`${module}\`, kinds \`${item}.*\`), in
 * the operator's words: the Activity page offers them as filters (GET /api/v1/activity/vocabulary).
 */
export const ${moduleCamel}Activity = defineActivity({
  sources: { ${module}: '${Words}' },
  kinds: { ${item}: '${Words}' },
})
`,
    [`${dir}/settings.ts`]: `import vine from '@vinejs/vine'
import { sectionFields } from '#core/contract/module_vocabulary'

/** Settings > ${Module}, a section of its own (app/modules/${module}/README.md, Settings). */
export const ${moduleCamel}Settings = [
  sectionFields('${module}', {
    defaults: { ${limitField}: 1000 },
    change: { ${limitField}: vine.number({ strict: true }).withoutDecimals().range([1, 1_000_000]) },
  }),
]

declare module '#core/settings/settings_catalogue' {
  interface RegisteredSettings {
    ${moduleCamel}: typeof ${moduleCamel}Settings
  }
}
`,
    [`${dir}/models/${item}.ts`]: `import { BaseModel, column } from '@adonisjs/lucid/orm'
import type { DateTime } from 'luxon'
import { idColumn } from '#core/database/columns'
import { utcDateTime } from '#core/database/utc_date_time'

/** One row of the ${module} table (app/modules/${module}/migrations). */
export default class ${Item} extends BaseModel {
  static table = '${module}'

  @idColumn()
  declare id: number

  @column()
  declare name: string

  @utcDateTime()
  declare createdAt: DateTime

  @utcDateTime()
  declare updatedAt: DateTime
}
`,
    [`${dir}/stores/${item}_store.ts`]: `import { toIso } from '#core/database/utc_date_time'
import { keysetPage, type Page, type PageRequest } from '#core/pagination/keyset_page'
import ${Item} from '#modules/${module}/models/${item}'

/**
 * The ${module} table, through the ${Item} model: the module's SQL is here and nowhere else, and
 * its services call these methods (docs/modules.md, Data access).
 */
export class ${Item}Store {
  /** Newest first. */
  page(request: PageRequest): Promise<Page<${Item}>> {
    return keysetPage(${Item}.query(), request, 'created_at', (row) => toIso(row.createdAt))
  }

  async count(): Promise<number> {
    const counted = await ${Item}.query().count('* as total').first()
    return Number(counted?.$extras.total ?? 0)
  }

  add(fields: Partial<${Item}>): Promise<${Item}> {
    return ${Item}.create(fields)
  }
}
`,
    [`${dir}/services/${module}_service.ts`]: `import { inject } from '@adonisjs/core'
import emitter from '@adonisjs/core/services/emitter'
import { Clock } from '#core/time/clock'
import { ApiError } from '#core/http/api_error'
import { SettingsStore } from '#core/settings/settings_store'
import { ActivityLog } from '#core/activity/activity_log'
import type { Caller } from '#core/http/access'
import { dateTimeOf, toIso } from '#core/database/utc_date_time'
import type { PageRequest } from '#core/pagination/keyset_page'
import type { PageOf } from '#core/contract/schemas'
import type ${Item} from '#modules/${module}/models/${item}'
import { ${Item}Store } from '#modules/${module}/stores/${item}_store'
import type { ${Item}Resource, ${itemCamel}Schema } from '#modules/${module}/routes'

export interface ${Item}Fields {
  name: string
}

/** The ${Item} resource, typed by its schema in routes.ts: a field left out or added fails the type check. */
export function ${itemCamel}Resource(row: ${Item}): ${Item}Resource {
  return { id: String(row.id), name: row.name, createdAt: toIso(row.createdAt), updatedAt: toIso(row.updatedAt) }
}

/** The ${words}: listed newest first, created up to the limit of Settings > ${Module}. */
@inject()
export class ${Module}Service {
  constructor(
    private clock: Clock,
    private settings: SettingsStore,
    private activity: ActivityLog,
    private items: ${Item}Store
  ) {}

  /** A page of ${words}, typed by PageOf: the list's envelope as its schema (pageOf) says. */
  async list(page: PageRequest): Promise<PageOf<typeof ${itemCamel}Schema>> {
    const found = await this.items.page(page)
    return { data: found.data.map(${itemCamel}Resource), nextCursor: found.nextCursor }
  }

  /** \`by\`: the caller who asked, named by the Activity entry (null: the gateway itself). */
  async create(fields: ${Item}Fields, by: Caller | null) {
    const { ${limitField} } = await this.settings.get('${module}')
    if ((await this.items.count()) >= ${limitField}) {
      throw new ApiError('${errorKind}', 'The limit of Settings > ${Module} is reached')
    }
    const now = dateTimeOf(this.clock.now())
    const created = await this.items.add({ ...fields, createdAt: now, updatedAt: now })
    // After the write: a public event carries identifiers only.
    await emitter.emit('${event}', { id: String(created.id), at: this.clock.now() })
    // In the Activity log, in the caller's name (declared in activity.ts): no more than its name.
    await this.activity.actingFor(by).info('${module}', '${event}', \`${Item} "\${created.name}" created\`, { ${itemCamel}Id: String(created.id) })
    return ${itemCamel}Resource(created)
  }
}
`,
    [`${dir}/validators/${item}_validators.ts`]: `import vine from '@vinejs/vine'
import { pageQueryFields } from '#core/pagination/keyset_page'

export const create${Item}Validator = vine.compile(vine.object({ name: vine.string().trim().minLength(1).maxLength(100) }))
export const list${Module}Validator = vine.compile(vine.object({ ...pageQueryFields }))
`,
    [`${dir}/controllers/${module}_controller.ts`]: `import { inject } from '@adonisjs/core'
import type { HttpContext } from '@adonisjs/core/http'
import { routeInputs } from '#core/contract/route_contract'
import { ${Module}Service } from '#modules/${module}/services/${module}_service'
import type { ${Module}Routes } from '#modules/${module}/routes'

/** Each route's input, validated by the router from its contract in routes.ts and typed from it. */
const input = routeInputs<${Module}Routes>()

/** Thin: take the validated input, call the service, shape the answer. */
@inject()
export default class ${Module}Controller {
  constructor(private items: ${Module}Service) {}

  async index(ctx: HttpContext) {
    return this.items.list(input(ctx, 'list${Module}').query)
  }

  async store(ctx: HttpContext) {
    const created = await this.items.create(input(ctx, 'create${Item}').body, ctx.caller!)
    ctx.response.status(201)
    return created
  }
}
`,
    [`${dir}/routes.ts`]: `import { defineRoutes } from '#core/contract/route_contract'
import { isoDateTimeSchema, pageOf } from '#core/contract/schemas'
import type { RouteRegistry } from '#core/contract/route_registry'
import type { JsonOf } from '#core/contract/typed_schema'
import { ${moduleCamel}Permissions } from '#modules/${module}/permissions'
import { create${Item}Validator, list${Module}Validator } from '#modules/${module}/validators/${item}_validators'

const ${Module}Controller = () => import('#modules/${module}/controllers/${module}_controller')

/** The ${Item} resource as published; \`${itemCamel}Resource\` (services/${module}_service.ts) answers it, typed by it. */
export const ${itemCamel}Schema = {
  type: 'object',
  required: ['id', 'name', 'createdAt', 'updatedAt'],
  additionalProperties: false,
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    createdAt: isoDateTimeSchema,
    updatedAt: isoDateTimeSchema,
  },
} as const
export type ${Item}Resource = JsonOf<typeof ${itemCamel}Schema>

/** What the ${words} module offers over HTTP: one route contract per endpoint. */
export function ${moduleCamel}Routes(registry: RouteRegistry) {
  registry.describeTag('${Module}', 'The ${words} module')
  const ${moduleCamel}Item = registry.addSchema('${Item}', ${itemCamel}Schema)

  return defineRoutes([
    {
      method: 'GET',
      path: '/api/v1/${path}',
      operationId: 'list${Module}',
      summary: '${Module}, newest first',
      tag: '${Module}',
      access: ${moduleCamel}Permissions['${module}.read'],
      query: list${Module}Validator,
      answer: { status: 200, description: 'A page of ${words}', schema: pageOf(${moduleCamel}Item) },
      handler: [${Module}Controller, 'index'],
    },
    {
      method: 'POST',
      path: '/api/v1/${path}',
      operationId: 'create${Item}',
      summary: 'Create a ${item.replace(/_/g, ' ')}',
      tag: '${Module}',
      access: ${moduleCamel}Permissions['${module}.change'],
      body: create${Item}Validator,
      answer: { status: 201, description: 'The ${item.replace(/_/g, ' ')}', schema: ${moduleCamel}Item },
      errors: ['${errorKind}'],
      handler: [${Module}Controller, 'store'],
    },
  ])
}

/** The contracts as typed, for the handlers' input (\`routeInputs<${Module}Routes>()\`). */
export type ${Module}Routes = ReturnType<typeof ${moduleCamel}Routes>
`,
    [`${dir}/migrations/${migrationNumber}_${module}_create_${module}.ts`]: `import { BaseSchema } from '@adonisjs/lucid/schema'

/**
 * The ${module} table. A module's migration relies only on the tables of database/migrations
 * and of its own folder (docs/adding-a-module.md, Migrations).
 */
export default class extends BaseSchema {
  async up() {
    this.schema.createTable('${module}', (table) => {
      table.increments('id')
      table.string('name', 100).notNullable()
      table.string('created_at').notNullable()
      table.string('updated_at').notNullable()
      table.index(['created_at', 'id'])
    })
  }

  async down() {
    this.schema.dropTable('${module}')
  }
}
`,
    [`${dir}/README.md`]: `# ${Module}

The ${words} module (\`app/modules/${module}/\`), made with \`node ace make:module ${module}\`
(docs/adding-a-module.md says what each file is for).

## Routes

| Route | Permission | Answers |
|---|---|---|
| \`GET /api/v1/${path}\` | \`${module}.read\` (read keys, every dashboard role) | a page of ${words}, newest first |
| \`POST /api/v1/${path}\` | \`${module}.change\` (admin keys, operators, superadmins) | 201 with the new item; 409 \`${errorKind}\` when the limit is reached |

## Settings

Settings > ${Module} (\`GET\`/\`PATCH /api/v1/settings\`, section \`${module}\`):

| Field | Rule | Default |
|---|---|---|
| \`${limitField}\` | 1 to 1,000,000: creating beyond it is refused with \`${errorKind}\` | 1000 |

## Events

\`${event}\` (docs/webhooks.md, Events): \`id\` of the new item.

## Dashboard

${Words} (\`/${path}\`, menu group Data; \`dashboard/src/pages/${path}/\`): the ${words}, newest
first, and for the roles that may create one (operators, superadmins) a form to add one. It is
listed in the menu for the roles that may call \`list${Module}\`.
`,
    [`${pages}/pages.ts`]: `import { definePages } from '../../page_registry'

/** The ${words} module's pages (app/modules/${module}/README.md, Dashboard); the menu lists them for the roles that may call \`needs\`. */
export const pages = definePages([
  { name: '${path}', path: '${path}', title: '${Words}', needs: 'list${Module}', group: 'data', order: 30, load: () => import('./${Module}Page.vue') },
])
`,
    [`${pages}/use_${module}.ts`]: `import { api, answer } from '../../api/client'
import type { components } from '../../api/schema'
import { useCursorList } from '../../components/use_cursor_list'

/** One of the ${words}, as the OpenAPI document describes it (generated by npm run api:types). */
export type ${Item} = components['schemas']['${Item}']

/** The ${words}, newest first, a page at a time (GET /api/v1/${path}). */
export function use${Item}List() {
  return useCursorList((cursor) => answer(api.GET('/api/v1/${path}', { params: { query: { cursor, limit: 50 } } })))
}

export async function create${Item}(fields: { name: string }) {
  return answer(api.POST('/api/v1/${path}', { body: fields }))
}
`,
    [`${pages}/${Module}Page.vue`]: `<script setup lang="ts">
import { ref } from 'vue'
import { NAlert, NButton, type DataTableColumns } from 'naive-ui'
import PagedTable from '../../components/PagedTable.vue'
import TextField from '../../components/TextField.vue'
import { useSubmit } from '../../components/use_submit'
import { localTime } from '../../components/time'
import { may } from '../../session/session'
import { create${Item}, use${Item}List, type ${Item} } from './use_${module}'

const list = use${Item}List()
void list.reload()

// The form is shown only to the roles that may create (a read-only account sees no action).
const mayCreate = may('create${Item}')
const name = ref('')
const creation = useSubmit(() => create${Item}({ name: name.value }))
async function create() {
  if (await creation.submit()) {
    name.value = ''
    await list.reload()
  }
}

const columns: DataTableColumns<${Item}> = [
  { title: 'Name', key: 'name' },
  { title: 'Created', key: 'createdAt', width: 200, render: (row) => localTime(row.createdAt) },
]
</script>

<template>
  <section>
    <form v-if="mayCreate" class="create" @submit.prevent="create">
      <NAlert v-if="creation.message.value" type="error" role="alert" class="problem">{{ creation.message.value }}</NAlert>
      <div class="fields">
        <TextField id="${path}-name" v-model="name" label="New ${itemWords}" :error="creation.fieldError('name')" />
        <NButton type="primary" attr-type="submit" :loading="creation.busy.value">Add</NButton>
      </div>
    </form>
    <PagedTable :list="list" :columns="columns" empty="No ${itemWords} yet." :row-key="(row: ${Item}) => row.id" data-testid="${path}-list" />
  </section>
</template>

<style scoped>
.create { max-width: 480px; margin-bottom: 12px; }
.fields { display: flex; align-items: flex-start; gap: 12px; }
.fields > :first-child { flex: 1; }
.fields .n-button { margin-top: 26px; }
.problem { margin-bottom: 12px; }
</style>
`,
    [`tests/functional/${module}/settings_defaults.ts`]: `/** The documented defaults of the ${words} module's settings (app/modules/${module}/README.md, Settings). */
export default {
  ${module}: { ${limitField}: 1000 },
}
`,
    [`tests/functional/${module}/expected_callers.ts`]: `import type { Role, Scope } from '#core/http/access'

/**
 * Who may call each route of the ${words} module, written by hand from its README (Routes), not
 * derived from permissions.ts: the permission matrix (tests/functional/auth/permission_matrix.spec.ts)
 * calls every route as every key scope and role and checks the permissions and the router
 * against this. A new protected route of the module gets its line here.
 */
export default {
  'GET /api/v1/${path}': ['key:read', 'key:send', 'key:admin', 'session:readonly', 'session:operator', 'session:superadmin'],
  'POST /api/v1/${path}': ['key:admin', 'session:operator', 'session:superadmin'],
} satisfies Record<string, Array<\`key:\${Scope}\` | \`session:\${Role}\`>>
`,
    [`tests/functional/${module}/${module}.spec.ts`]: `import { test } from '@japa/runner'
import app from '@adonisjs/core/services/app'
import db from '@adonisjs/lucid/services/db'
import emitter from '@adonisjs/core/services/emitter'
import { SettingsStore } from '#core/settings/settings_store'
import { testKeys, useTestKeys } from '#tests/helpers/callers'

test.group('${Module}', (group) => {
  group.setup(() => useTestKeys())
  group.each.setup(async () => {
    await db.from('${module}').delete()
    await db.from('settings').delete()
    ;(await app.container.make(SettingsStore)).invalidate()
  })

  test('an admin key creates a ${item.replace(/_/g, ' ')}; the list answers it, newest first, and ${event} is emitted', async ({ client, assert }) => {
    const events = emitter.fake(['${event}'])
    try {
      const created = await client.post('/api/v1/${path}').header('x-api-key', testKeys.admin).json({ name: 'First' })
      created.assertStatus(201)
      assert.equal(created.body().name, 'First')
      events.assertEmitted('${event}', ({ data }) => data.id === created.body().id)
    } finally {
      emitter.restore()
    }
    await client.post('/api/v1/${path}').header('x-api-key', testKeys.admin).json({ name: 'Second' })

    const listed = await client.get('/api/v1/${path}').header('x-api-key', testKeys.read)
    listed.assertStatus(200)
    assert.deepEqual(
      listed.body().data.map((row: { name: string }) => row.name),
      ['Second', 'First']
    )
  })

  test('a read key may list but not create; a body it does not name is refused', async ({ client }) => {
    const refused = await client.post('/api/v1/${path}').header('x-api-key', testKeys.read).json({ name: 'First' })
    refused.assertStatus(403)
    const unknown = await client.post('/api/v1/${path}').header('x-api-key', testKeys.admin).json({ name: 'First', extra: 1 })
    unknown.assertStatus(400)
  })

  test('creating beyond Settings > ${Module} ${limitField} is 409 ${errorKind}', async ({ client }) => {
    const patched = await client.patch('/api/v1/settings').header('x-api-key', testKeys.admin).json({ ${module}: { ${limitField}: 1 } })
    patched.assertStatus(200)
    ;(await client.post('/api/v1/${path}').header('x-api-key', testKeys.admin).json({ name: 'First' })).assertStatus(201)
    const refused = await client.post('/api/v1/${path}').header('x-api-key', testKeys.admin).json({ name: 'Second' })
    refused.assertStatus(409)
    refused.assertBodyContains({ error: { code: '${errorKind}' } })
  })
})
`,
  }
}

/** adonisrc.ts with the module's provider appended to the providers, after the last module's. */
export function withProvider(rcFile: string, module: string): string {
  const line = `() => import('#modules/${module}/${module}_provider'),`
  if (rcFile.includes(`'#modules/${module}/${module}_provider'`)) return rcFile
  const lines = rcFile.split('\n')
  const last = lines.findLastIndex((text) => /^\s*\(\) => import\('#modules\/[^']+_provider'\),\s*$/.test(text))
  if (last === -1) throw new Error("adonisrc.ts: no module provider line (() => import('#modules/<m>/<m>_provider'),) to add after")
  const indent = /^\s*/.exec(lines[last])![0]
  lines.splice(last + 1, 0, `${indent}${line}`)
  return lines.join('\n')
}

/** docs/webhooks.md with a row for the module's public event at the end of the Events table. */
export function withEventRow(webhooksDoc: string, names: ModuleNames): string {
  const event = `${names.item}.created`
  if (webhooksDoc.includes(`\`${event}\``)) return webhooksDoc
  const lines = webhooksDoc.split('\n')
  const heading = lines.indexOf('## Events')
  if (heading === -1) throw new Error('docs/webhooks.md: no "## Events" section')
  let row = heading + 1
  while (row < lines.length && !lines[row].startsWith('|')) row++
  while (row < lines.length && lines[row].startsWith('|')) row++
  lines.splice(row, 0, `| \`${event}\` | A ${names.item.replace(/_/g, ' ')} was created (app/modules/${names.module}/README.md) | \`id\` (${names.item.replace(/_/g, ' ')}) |`)
  return lines.join('\n')
}
