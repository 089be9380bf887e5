import type { JsonOf } from '#core/contract/typed_schema'
import { isoDateTimeSchema, type PageOf } from '#core/contract/schemas'
import { activityLevels } from '#core/activity/activity_entry'

/** GET /health (system/health_controller.ts). */
export const healthSchema = {
  type: 'object',
  required: ['status', 'storage', 'database'],
  properties: {
    status: { enum: ['ok', 'degraded'] },
    storage: { enum: ['ok', 'full'] },
    database: { enum: ['ok', 'locked'] },
  },
} as const
export type HealthAnswer = JsonOf<typeof healthSchema>

/** One Activity entry; `ActivityEntry.toResource` (activity/activity_entry.ts) answers it. */
export const activityEntrySchema = {
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
} as const
export type ActivityEntryResource = JsonOf<typeof activityEntrySchema>
export type ActivityPage = PageOf<typeof activityEntrySchema>

/** A source, kind family or kind of the Activity log, with its label (activity/activity_vocabulary.ts). */
export const activityTermSchema = {
  type: 'object',
  required: ['value', 'label'],
  additionalProperties: false,
  properties: {
    value: { type: 'string', description: 'A source (`backups`), a kind family (`webhook`) or a kind (`webhook.disabled`), as GET /activity filters by it' },
    label: { type: 'string', description: "In the operator's words" },
  },
} as const
export type ActivityTerm = JsonOf<typeof activityTermSchema>

export const activityActorsSchema = {
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
} as const
export type ActivityActors = JsonOf<typeof activityActorsSchema>

/** The vocabulary's answer; `term` is the ActivityTerm schema or its reference. */
export function activityVocabularySchema<const T extends Record<string, unknown>>(term: T) {
  const terms = { type: 'array', items: term } as const
  return {
    type: 'object',
    required: ['sources', 'kinds'],
    additionalProperties: false,
    properties: { sources: terms, kinds: terms },
  } as const
}
export type ActivityVocabulary = JsonOf<ReturnType<typeof activityVocabularySchema<typeof activityTermSchema>>>

/** One line of the technical log (logging/technical_log.ts). */
export const technicalLogLineSchema = {
  type: 'object',
  required: ['at', 'level', 'message', 'requestId', 'context'],
  properties: {
    at: { type: ['string', 'null'], format: 'date-time' },
    level: { enum: ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] },
    message: { type: 'string' },
    requestId: { type: ['string', 'null'] },
    context: { type: 'object' },
  },
} as const
export type TechnicalLogLine = JsonOf<typeof technicalLogLineSchema>
export type TechnicalLogPage = PageOf<typeof technicalLogLineSchema>
