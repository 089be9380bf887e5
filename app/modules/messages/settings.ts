import vine from '@vinejs/vine'
import { sectionFields } from '#core/contract/module_vocabulary'

/**
 * Settings > Sending: how many times a message is tried, 4 by default (docs/sending.md, How a
 * message leaves).
 */
const attemptDefaults = {
  maxAttempts: 4,
}

type AttemptSettings = typeof attemptDefaults

declare module '#core/settings/settings_catalogue' {
  interface SendingSettings extends AttemptSettings {}
}

export const messageSettings = [
  sectionFields('sending', {
    defaults: attemptDefaults,
    change: { maxAttempts: vine.number({ strict: true }).withoutDecimals().range([1, 10]) },
  }),
]
