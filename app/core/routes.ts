import { access } from '#core/http/access'
import { corePermissions } from '#core/http/permissions'
import { checkedByHandler, defineRoutes } from '#core/contract/route_contract'
import { pageOf } from '#core/contract/schemas'
import {
  activityActorsSchema,
  activityEntrySchema,
  activityTermSchema,
  activityVocabularySchema,
  healthSchema,
  technicalLogLineSchema,
} from '#core/schemas'
import type { RouteRegistry } from '#core/contract/route_registry'
import { settingsCatalogue } from '#core/settings/settings_catalogue'
import { listActivityValidator } from '#core/activity/activity_validators'
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
  // Every module has added its sections and fields by now (providers' register()).
  const settingsChangeValidator = settingsCatalogue.changeValidator
  const settingsSchema = registry.addSchema('Settings', settingsCatalogue.answerSchema())
  const activityEntry = registry.addSchema('ActivityEntry', activityEntrySchema)
  const activityTerm = registry.addSchema('ActivityTerm', activityTermSchema)
  const technicalLogLine = registry.addSchema('TechnicalLogLine', technicalLogLineSchema)

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
        schema: healthSchema,
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
        schema: activityActorsSchema,
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
        schema: activityVocabularySchema(activityTerm),
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
