import { access } from '#core/http/access'
import { corePermissions } from '#core/http/permissions'
import { checkedByHandler, defineRoutes } from '#core/contract/route_contract'
import { isoDateTimeSchema, pageOf } from '#core/contract/schemas'
import type { RouteRegistry } from '#core/contract/route_registry'
import { settingsCatalogue } from '#core/settings/settings_catalogue'
import { listActivityValidator } from '#core/activity/activity_validators'
import { activityLevels } from '#core/activity/activity_entry'
import { listTechnicalLogValidator } from '#core/logging/technical_log_validator'

const HealthController = () => import('#core/system/health_controller')
const ApiDocsController = () => import('#core/system/api_docs_controller')
const SettingsController = () => import('#core/settings/settings_controller')
const ActivityController = () => import('#core/activity/activity_controller')
const TechnicalLogController = () => import('#core/system/technical_log_controller')

function sectionsAnswering422(): string {
  const names = settingsCatalogue.sectionNames.filter((name) => settingsCatalogue.outOfRangeIs422(name))
  return names.length ? names.map((name) => `the ${name} block`).join(', ') : 'no section'
}

/** The platform's own endpoints: health, self-description, settings, activity, technical log. */
export function coreRoutes(registry: RouteRegistry) {
  registry.describeTag('System', 'Health, self-description and the technical log')
  registry.describeTag('Settings', `Typed settings sections: ${settingsCatalogue.sectionNames.join(', ')}`)
  registry.describeTag('Activity', 'What happened, for the operator: info, warnings and errors written by every module')
  // The answer always carries every field of every section: the change schemas, all required.
  // Every module has added its sections and fields by now (providers' register()).
  const settingsChangeValidator = settingsCatalogue.changeValidator
  const settingsSchema = registry.addSchema('Settings', {
    type: 'object',
    required: settingsCatalogue.sectionNames,
    properties: Object.fromEntries(
      settingsCatalogue.sectionNames.map((name) => [
        name,
        {
          ...settingsChangeValidator.toJSONSchema().properties?.[name],
          required: settingsCatalogue.fieldNames(name),
          description: `Defaults: ${JSON.stringify(settingsCatalogue.defaults(name))}`,
        },
      ])
    ),
  })
  const activityEntry = registry.addSchema('ActivityEntry', {
    type: 'object',
    required: ['id', 'level', 'source', 'kind', 'actor', 'actorName', 'message', 'details', 'createdAt'],
    properties: {
      id: { type: 'string' },
      level: { enum: [...activityLevels] },
      source: { type: 'string', description: 'The module that wrote the entry' },
      kind: { type: 'string', description: 'What kind of fact, `<thing>.<what happened>`: apikey.created, device.paired, webhook.disabled, campaign.started, rule.changed, backup.failed, restore.applied, settings.changed…' },
      actor: { type: ['string', 'null'], description: 'Who did it: `account:<id>` or `api_key:<id>`; null: the gateway itself (a job, a phone, start-up)' },
      actorName: { type: ['string', 'null'], description: 'Their name when they did it' },
      message: { type: 'string' },
      details: { type: ['object', 'null'] },
      createdAt: isoDateTimeSchema,
    },
  })
  const activityTerm = registry.addSchema('ActivityTerm', {
    type: 'object',
    required: ['value', 'label'],
    additionalProperties: false,
    properties: {
      value: { type: 'string', description: 'A source (`backups`), a kind family (`webhook`) or a kind (`webhook.disabled`), as GET /activity filters by it' },
      label: { type: 'string', description: "In the operator's words" },
    },
  })
  const activityTerms = { type: 'array', items: activityTerm }
  const technicalLogLine = registry.addSchema('TechnicalLogLine', {
    type: 'object',
    required: ['at', 'level', 'message', 'requestId', 'context'],
    properties: {
      at: { type: ['string', 'null'], format: 'date-time' },
      level: { enum: ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] },
      message: { type: 'string' },
      requestId: { type: ['string', 'null'] },
      context: { type: 'object' },
    },
  })

  return defineRoutes([
    {
      method: 'GET',
      path: '/health',
      operationId: 'getHealth',
      summary: 'Health check',
      description:
        'Answers 200 once the gateway serves and its database answers. `status` is `degraded` (still 200) while the data folder\'s disk is full (`storage: full`: writes answer 503 STORAGE_FULL, reads go on) or another program holds the database (`database: locked`: writes answer 503 DATABASE_BUSY).',
      tag: 'System',
      access: access.public(),
      answer: {
        status: 200,
        description: 'The gateway serves',
        schema: {
          type: 'object',
          required: ['status', 'storage', 'database'],
          properties: {
            status: { enum: ['ok', 'degraded'] },
            storage: { enum: ['ok', 'full'] },
            database: { enum: ['ok', 'locked'] },
          },
        },
      },
      handler: [HealthController, 'show'],
    },
    {
      method: 'GET',
      path: '/api-docs/openapi.json',
      operationId: 'getOpenApiDocument',
      summary: 'OpenAPI 3.1 contract of this installed version',
      tag: 'System',
      access: access.public(),
      answer: { status: 200, description: 'This document', schema: { type: 'object' } },
      handler: [ApiDocsController, 'openapi'],
    },
    {
      method: 'GET',
      path: '/api/v1',
      operationId: 'getApiReference',
      summary: 'Interactive API reference page',
      description: 'Readable without signing in. Running a call from it needs a valid API key (Authorize).',
      tag: 'System',
      access: access.public(),
      answer: { status: 200, description: 'HTML page', contentType: 'text/html', schema: { type: 'string' } },
      handler: [ApiDocsController, 'reference'],
    },
    {
      method: 'GET',
      path: '/api/v1/settings',
      operationId: 'getSettings',
      summary: 'Settings in force',
      tag: 'Settings',
      access: corePermissions['settings.read'],
      answer: { status: 200, description: 'Every section with its values', schema: settingsSchema },
      handler: [SettingsController, 'show'],
    },
    {
      method: 'PATCH',
      path: '/api/v1/settings',
      operationId: 'updateSettings',
      summary: 'Change settings',
      description:
        'Partial: send only the sections and fields to change; an omitted field is left unchanged. An unknown section or ' +
        `field is refused. A value out of range in ${sectionsAnswering422()} answers 422; elsewhere 400. Changes apply ` +
        'within a minute, without restart.',
      tag: 'Settings',
      access: corePermissions['settings.change'],
      body: checkedByHandler(settingsChangeValidator),
      answer: { status: 200, description: 'Settings in force, every section', schema: settingsSchema },
      errors: ['SETTING_OUT_OF_RANGE'],
      handler: [SettingsController, 'update'],
    },
    {
      method: 'GET',
      path: '/api/v1/activity',
      operationId: 'listActivity',
      summary: 'Activity log, newest first',
      tag: 'Activity',
      access: corePermissions['activity.read'],
      query: listActivityValidator,
      answer: { status: 200, description: 'A page of entries', schema: pageOf(activityEntry) },
      handler: [ActivityController, 'index'],
    },
    {
      method: 'GET',
      path: '/api/v1/activity/actors',
      operationId: 'listActivityActors',
      summary: 'Who appears in the Activity log (for its filter), latest first',
      tag: 'Activity',
      access: corePermissions['activity.read'],
      answer: {
        status: 200,
        description: 'Accounts and API keys that wrote entries, with their latest name (at most 200)',
        schema: {
          type: 'object',
          required: ['data'],
          additionalProperties: false,
          properties: {
            data: {
              type: 'array',
              items: {
                type: 'object',
                required: ['actor', 'name'],
                additionalProperties: false,
                properties: { actor: { type: 'string' }, name: { type: ['string', 'null'] } },
              },
            },
          },
        },
      },
      handler: [ActivityController, 'actors'],
    },
    {
      method: 'GET',
      path: '/api/v1/activity/vocabulary',
      operationId: 'getActivityVocabulary',
      summary: 'What Activity entries are about, in the operator\'s words (for its filters)',
      description:
        'The sources that write the log (`source`) and the kind families and kinds (`kind`: a family such as `webhook` takes every ' +
        '`webhook.*`), each with its label, as the modules declare them; sorted by label.',
      tag: 'Activity',
      access: corePermissions['activity.read'],
      answer: {
        status: 200,
        description: 'The sources and kinds, each with its label',
        schema: {
          type: 'object',
          required: ['sources', 'kinds'],
          additionalProperties: false,
          properties: { sources: activityTerms, kinds: activityTerms },
        },
      },
      handler: [ActivityController, 'vocabulary'],
    },
    {
      method: 'GET',
      path: '/api/v1/logs/technical',
      operationId: 'listTechnicalLog',
      summary: "The gateway's own log, newest line first",
      description:
        'Redacted like the log itself: no secrets, SMS text or full phone numbers. With level or search, a request ' +
        'reads at most 4 MB of the log: a page may then hold fewer lines than limit (even none) while nextCursor ' +
        'still leads to older lines.',
      tag: 'System',
      access: corePermissions['technicalLog.read'],
      query: listTechnicalLogValidator,
      answer: { status: 200, description: 'A page of log lines', schema: pageOf(technicalLogLine) },
      handler: [TechnicalLogController, 'index'],
    },
  ])
}

/** Core's contracts as typed, for their handlers' input (`routeInputs<CoreRoutes>()`). */
export type CoreRoutes = ReturnType<typeof coreRoutes>
