import type { PhoneNumbers } from '#core/phone_numbers/phone_numbers'
import { countSegments } from '#core/sms/segment_counter'
import type Campaign from '#modules/campaigns/models/campaign'
import { resolveAudience } from '#modules/campaigns/services/audience_resolution'
import { afterSendingMinutes, isSendingOpen, nextOpening, type SendWindowSettings } from '#modules/campaigns/services/send_window'
import { phonesAvailable } from '#modules/devices/public'

/**
 * What a launch would do, read without writing: recipients after exclusions, segments and
 * encodings of the texts as rendered per recipient, three samples, how long it should take at
 * the throttle, and what would stop it (problems, in plain words).
 */
export async function reviewCampaign(options: {
  campaign: Campaign
  body: string | null
  now: Date
  window: SendWindowSettings
  phoneNumbers: PhoneNumbers
  localPrefix: string | null
}) {
  const { campaign, now, window } = options
  const problems: string[] = []
  let recipients = 0
  let segments = 0
  const encodings = { gsm7: 0, ucs2: 0 }
  const sample: Array<{ phone: string; body: string; encoding: string; segments: number }> = []
  const body = options.body ?? ''
  if (!body.trim()) problems.push('The campaign has no text: write one or choose a template.')
  const { excluded } = await resolveAudience({
    audience: campaign.audience,
    body,
    phoneNumbers: options.phoneNumbers,
    localPrefix: options.localPrefix,
    accept: async (page) => {
      for (const recipient of page) {
        const counted = countSegments(recipient.body)
        recipients++
        segments += counted.segments
        encodings[counted.encoding]++
        if (sample.length < 3) sample.push({ phone: recipient.phone, body: recipient.body, encoding: counted.encoding, segments: counted.segments })
      }
    },
  })
  if (!recipients) problems.push('No one would receive it: the audience is empty once opted-out, repeated and invalid numbers are left out.')
  const startsAt = campaign.startAt && campaign.startAt.toMillis() > now.getTime() ? campaign.startAt.toJSDate() : now
  const opensAt = isSendingOpen(startsAt, window) ? startsAt : nextOpening(startsAt, window)
  if (!opensAt) problems.push('The send window never opens: check its days and hours in Settings > Sending.')
  // Not a refusal (a phone may come back before the start), but nothing leaves until one does.
  if ((await phonesAvailable()) === 0) problems.push('No phone is online and enabled: the campaign will wait for one (Phones page).')
  const estimatedDurationSeconds = campaign.throttlePerMinute ? Math.ceil((recipients / campaign.throttlePerMinute) * 60) : null
  const end = opensAt && campaign.throttlePerMinute ? afterSendingMinutes(opensAt, recipients / campaign.throttlePerMinute, window) : null
  return {
    recipients,
    excluded,
    segments,
    encodings,
    sample,
    estimatedDurationSeconds,
    startsAt: (opensAt ?? startsAt).toISOString(),
    estimatedEndAt: end ? end.toISOString() : null,
    problems,
  }
}
