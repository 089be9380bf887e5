import { ApiError } from '#core/http/api_error'
import type { PhoneNumbers } from '#core/phone_numbers/phone_numbers'
import { ContactAudience, type AudienceMember } from '#modules/contacts/public'
import type { CampaignAudience } from '#modules/campaigns/models/campaign'
import { renderTemplate } from '#core/sms/template_text'
import { chunksOf } from '#core/database/statement_chunks'

/** One recipient as resolved at launch: the number, its contact if any, its text rendered. */
export interface ResolvedRecipient {
  contactId: number | null
  phone: string
  body: string
}

export interface ResolvedAudience {
  excluded: { optedOut: number; duplicates: number; invalid: number }
}

/** Numbers normalised and looked up per batch: a 100,000-number list is 20 lookups. */
const NUMBERS_PAGE = 1000
/** Contacts read per statement while resolving: small pages keep the launch's memory flat. */
const RESOLVE_PAGE = 1000

/**
 * Reads a campaign's audience once (groups, contacts, imports through ContactAudience, then bare
 * numbers normalised with the local prefix and matched to their contacts), each number once:
 * opted-out contacts, repeats (a contact met in two sources, a number met twice) and invalid
 * numbers are counted, never sent to. Recipients
 * go to `accept` page by page, so a large audience never sits whole in memory twice.
 */
export async function resolveAudience(options: {
  audience: CampaignAudience
  body: string
  phoneNumbers: PhoneNumbers
  localPrefix: string | null
  accept: (page: ResolvedRecipient[]) => Promise<void>
}): Promise<ResolvedAudience> {
  const contacts = new ContactAudience()
  const seen = new Set<string>()
  const excluded = { optedOut: 0, duplicates: 0, invalid: 0 }
  const take = (members: Array<AudienceMember & { occurrences?: number }>): ResolvedRecipient[] => {
    const page: ResolvedRecipient[] = []
    for (const member of members) {
      // A contact held by two groups (or named and in a group) is served once by ContactAudience:
      // its other meetings are repeats all the same, counted like a number typed twice.
      const repeats = (member.occurrences ?? 1) - 1
      if (seen.has(member.phone)) {
        excluded.duplicates += repeats + 1
        continue
      }
      excluded.duplicates += repeats
      seen.add(member.phone)
      if (member.blacklisted) {
        excluded.optedOut++
        continue
      }
      page.push({ contactId: member.contactId, phone: member.phone, body: renderTemplate(options.body, member) })
    }
    return page
  }

  const selection = {
    groupIds: options.audience.groupIds.map(Number),
    contactIds: options.audience.contactIds.map(Number),
    importIds: options.audience.importIds.map(Number),
  }
  for await (const members of contacts.members(selection, RESOLVE_PAGE)) await options.accept(take(members))

  for (const numbers of chunksOf(options.audience.numbers, NUMBERS_PAGE)) {
    const normalised: string[] = []
    for (const number of numbers) {
      try {
        normalised.push(options.phoneNumbers.normalize(number, options.localPrefix))
      } catch (error) {
        if (!(error instanceof ApiError)) throw error
        excluded.invalid++
      }
    }
    const known = await contacts.byPhone(normalised)
    const members: AudienceMember[] = normalised.map(
      (phone) => known.get(phone) ?? { contactId: 0, phone, blacklisted: false, firstName: null, lastName: null, company: null, email: null, fields: {} }
    )
    const page = take(members).map((recipient) => ({ ...recipient, contactId: recipient.contactId || null }))
    await options.accept(page)
  }
  return { excluded }
}
