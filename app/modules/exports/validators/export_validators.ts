import vine from '@vinejs/vine'
import { messageExportFilterFields } from '#modules/messages/public'

const format = vine.enum(['csv', 'json'] as const).optional()

export const exportQueryValidator = vine.compile(vine.object({ format }))

/** The messages export also takes the messages list's filters and a selection's ids (the messages module's own fields). */
export const messageExportQueryValidator = vine.compile(vine.object({ format, ...messageExportFilterFields }))
