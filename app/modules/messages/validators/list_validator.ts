import vine from '@vinejs/vine'
import { pageQueryFields } from '#core/pagination/keyset_page'

export const listQueryValidator = vine.compile(vine.object({ ...pageQueryFields }))
