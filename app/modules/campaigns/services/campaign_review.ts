import type { PhoneNumbers } from '#core/phone_numbers/phone_numbers'
import { countSegments } from '#core/sms/segment_counter'
import type Campaign from '#modules/campaigns/models/campaign'
import { resolveAudience } from '#modules/campaigns/services/audience_resolution'
import { afterSendingMinutes, isSendingOpen, nextOpening, type SendWindowSettings } from '#modules/campaigns/services/send_window'
import { phoneExists, phonesAvailable } from '#modules/devices/public'
import type { CampaignReview } from '#modules/campaigns/schemas'

/**
 * What a review may find, each with a stable code so a client tells them apart without reading
 * the sentence (docs/campaigns.md, "Review problems").
 */
export const reviewProblemCodes = ['NO_TEXT', 'NO_RECIPIENTS', 'WINDOW_NEVER_OPENS', 'NO_PHONE_AVAILABLE', 'FORCED_PHONE_NOT_PAIRED'] as const
export type ReviewProblemCode = (typeof reviewProblemCodes)[number]

/** Whether the phone a campaign forces is paired (a campaign forcing none needs none). */
export async function forcedPhonePaired(deviceId: string | null): Promise<boolean> {
  if (deviceId === null) return true
  return /^\d{1,15}$/.test(deviceId) && (await phoneExists(Number(deviceId)))
}

/**
 * What a launch would do, read without writing: recipients after exclusions, segments and
 * encodings of the texts as rendered per recipient, three samples, how long it should take at
 * the throttle, and what would stop or hold it (problems: a code and a sentence).
 */
export async function reviewCampaign(options: {
  campaign: Campaign
  body: string | null
  now: Date
  window: SendWindowSettings
  phoneNumbers: PhoneNumbers
  localPrefix: string | null
}): Promise<CampaignReview> {
  const { campaign, now, window } = options
  const problems: Array<{ code: ReviewProblemCode; message: string }> = []
  const problem = (code: ReviewProblemCode, message: string) => problems.push({ code, message })
  let recipients = 0
  let segments = 0
  const encodings = { gsm7: 0, ucs2: 0 }
  const sample: CampaignReview['sample'] = []
  const body = options.body ?? ''
  if (!body.trim()) problem('NO_TEXT', 'The campaign has no text: write one or choose a template.')
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
  if (!recipients) problem('NO_RECIPIENTS', 'No one would receive it: the audience is empty once opted-out, repeated and invalid numbers are left out.')
  const startsAt = campaign.startAt && campaign.startAt.toMillis() > now.getTime() ? campaign.startAt.toJSDate() : now
  const opensAt = isSendingOpen(startsAt, window) ? startsAt : nextOpening(startsAt, window)
  if (!opensAt) problem('WINDOW_NEVER_OPENS', 'The send window never opens: check its days and hours in Settings > Sending.')
  // Not a refusal (a phone may come back before the start), but nothing leaves until one does.
  if (!(await forcedPhonePaired(campaign.deviceId))) problem('FORCED_PHONE_NOT_PAIRED', 'The phone the campaign forces is not paired: choose another or none.')
  if ((await phonesAvailable()) === 0) problem('NO_PHONE_AVAILABLE', 'No phone is online and enabled: the campaign will wait for one (Phones page).')
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
