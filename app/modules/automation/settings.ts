import vine from '@vinejs/vine'
import { sectionFields } from '#core/contract/module_vocabulary'
import { documentedAs } from '#core/contract/schemas'

const keyword = () => vine.string().trim().minLength(1).maxLength(30).regex(/^\S+$/)
const reply = (description: string) => vine.string().trim().minLength(1).maxLength(1000).use(documentedAs({ description })).nullable()

/**
 * Settings > Reception: the built-in keywords (opt-out, opt-in, help) and the automatic-reply
 * limit. A keyword matches when it is the whole message (case, accents, spaces and final
 * punctuation aside), as carriers match STOP and HELP.
 */
export const automationSettings = [
  sectionFields('reception', {
    defaults: {
      optOutKeywordsEnabled: true,
      optOutKeywords: ['STOP', 'STOPALL', 'UNSUBSCRIBE', 'CANCEL', 'END', 'QUIT'],
      optInKeywords: ['START', 'UNSTOP'],
      optOutReply: null,
      optInReply: null,
      helpKeywords: ['HELP'],
      // Null by default, as the other replies: a gateway upgraded to this version does not start
      // answering SMS on its own until an operator writes the text.
      helpReply: null,
      autoReplyLimit: 3,
    },
    change: {
      optOutKeywordsEnabled: vine.boolean({ strict: true }).use(documentedAs({ description: 'Whether the built-in keywords (opt-out, opt-in, help) are acted on' })),
      optOutKeywords: vine.array(keyword()).maxLength(20).use(documentedAs({ description: 'Single words that opt the sender out (case and accents ignored)' })),
      optInKeywords: vine.array(keyword()).maxLength(20).use(documentedAs({ description: 'Single words that opt the sender back in' })),
      optOutReply: reply('Sent to a number that has just opted out; null: no reply'),
      optInReply: reply('Sent to a number that has just opted back in; null: no reply'),
      helpKeywords: vine.array(keyword()).maxLength(20).use(documentedAs({ description: 'Single words that ask for the help reply (an opt-out or opt-in keyword listed here too stays that)' })),
      helpReply: reply('Sent to a number that texts a help keyword, opted out or not; null: help keywords are not acted on'),
      autoReplyLimit: vine
        .number({ strict: true })
        .withoutDecimals()
        .range([0, 100])
        .use(documentedAs({ description: 'Automatic replies (rules and keywords) per number per 10 minutes at most; 0: none' })),
    },
  }),
]

declare module '#core/settings/settings_catalogue' {
  interface RegisteredSettings {
    automation: typeof automationSettings
  }
}
