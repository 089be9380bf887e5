import vine from '@vinejs/vine'
import { sectionFields } from '#core/contract/module_vocabulary'

/**
 * Settings > Sending: how many times a message is tried, 4 by default (docs/sending.md, How a
 * message leaves).
 */
export const messageSettings = [
  sectionFields('sending', {
    defaults: { maxAttempts: 4 },
    change: { maxAttempts: vine.number({ strict: true }).withoutDecimals().range([1, 10]) },
  }),
]

declare module '#core/settings/settings_catalogue' {
  interface RegisteredSettings {
    messages: typeof messageSettings
  }
}
