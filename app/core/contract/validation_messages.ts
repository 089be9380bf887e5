import vine from '@vinejs/vine'
import type { MessagesProviderContact } from '@vinejs/vine/types'

/**
 * VineJS's messages, with a list's item named by its path: `The selected events.0 is invalid`,
 * where VineJS alone names it by its bare position (`The selected 0 is invalid`). The answer's
 * `details[].field` already carries the path; the message now says the same.
 */
export const pathNamingMessages: MessagesProviderContact = {
  getMessage(rawMessage, rule, field, args) {
    const named = field.isArrayMember ? { ...field, name: field.getFieldPath() } : field
    return vine.messagesProvider.getMessage(rawMessage, rule, named, args)
  },
}
