import vine from '@vinejs/vine'
import { sectionFields } from '#core/contract/module_vocabulary'

const time = () => vine.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/)

/**
 * Settings > Sending: when campaigns may send (platform time zone). API sends are never held by
 * these; a campaign's backlog is paused when they close and resumed when they open.
 */
export const campaignSettings = [
  sectionFields('sending', {
    defaults: {
      campaignWindowEnabled: false,
      campaignWindowDays: [1, 2, 3, 4, 5, 6, 7],
      campaignWindowStart: '09:00',
      campaignWindowEnd: '20:00',
      nightPauseEnabled: true,
      nightPauseStart: '21:00',
      nightPauseEnd: '08:00',
    },
    change: {
      campaignWindowEnabled: vine.boolean({ strict: true }),
      campaignWindowDays: vine.array(vine.number({ strict: true }).withoutDecimals().range([1, 7])).distinct().maxLength(7),
      campaignWindowStart: time(),
      campaignWindowEnd: time(),
      nightPauseEnabled: vine.boolean({ strict: true }),
      nightPauseStart: time(),
      nightPauseEnd: time(),
    },
  }),
]

declare module '#core/settings/settings_catalogue' {
  interface RegisteredSettings {
    campaigns: typeof campaignSettings
  }
}
