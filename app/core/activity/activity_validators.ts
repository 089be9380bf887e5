import vine from '@vinejs/vine'
import { dateBoundField, pageQueryFields } from '#core/pagination/keyset_page'
import { activityLevels } from '#core/activity/activity_entry'
import { documentedAs } from '#core/contract/schemas'

export const listActivityValidator = vine.compile(
  vine.object({
    ...pageQueryFields,
    level: vine.enum(activityLevels).optional(),
    source: vine.string().maxLength(40).optional(),
    kind: vine
      .string()
      .regex(/^[a-z][a-z0-9_]*(\.[a-z0-9_]+)?$/)
      .maxLength(60)
      .use(documentedAs({ description: 'A kind (webhook.disabled) or a family of kinds (webhook)' }))
      .optional(),
    actor: vine
      .string()
      .regex(/^(system|account:\d{1,16}|api_key:\d{1,16})$/)
      .use(documentedAs({ description: 'account:<id>, api_key:<id>, or system (the gateway itself)' }))
      .optional(),
    since: dateBoundField().use(documentedAs({ description: 'Written at or after' })).optional(),
    until: dateBoundField().use(documentedAs({ description: 'Written before' })).optional(),
    search: vine.string().trim().minLength(1).maxLength(100).use(documentedAs({ description: 'Words the message contains (ignoring case)' })).optional(),
  })
)
