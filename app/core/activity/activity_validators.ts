import vine from '@vinejs/vine'
import { pageQueryFields } from '#core/pagination/keyset_page'
import { activityLevels } from '#core/activity/activity_entry'
import { documentedAs, isoDateTimeSchema } from '#core/contract/schemas'

const isoDate = () =>
  vine
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/)
    .use(documentedAs(isoDateTimeSchema))

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
    since: isoDate().use(documentedAs({ description: 'Written at or after' })).optional(),
    until: isoDate().use(documentedAs({ description: 'Written before' })).optional(),
    search: vine.string().trim().minLength(1).maxLength(100).use(documentedAs({ description: 'Words the message contains (ignoring case)' })).optional(),
  })
)
