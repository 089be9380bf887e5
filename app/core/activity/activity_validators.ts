import vine from '@vinejs/vine'
import { pageQueryFields } from '#core/pagination/keyset_page'
import { activityLevels } from '#core/activity/activity_entry'

export const listActivityValidator = vine.compile(
  vine.object({
    ...pageQueryFields,
    level: vine.enum(activityLevels).optional(),
    source: vine.string().maxLength(40).optional(),
  })
)
