import { inject } from '@adonisjs/core'
import type { TransactionClientContract } from '@adonisjs/lucid/types/database'
import { Clock } from '#core/time/clock'
import { ApiError } from '#core/http/api_error'
import { PhoneNumbers } from '#core/phone_numbers/phone_numbers'
import { SettingsStore } from '#core/settings/settings_store'
import { dateTimeOf } from '#core/database/utc_date_time'
import type { PageRequest } from '#core/pagination/keyset_page'
import type Contact from '#modules/contacts/models/contact'
import { ContactStore } from '#modules/contacts/stores/contact_store'
import type { ContactResource, OptOutOutcome } from '#modules/contacts/schemas'
import { ContactGroups } from '#modules/contacts/services/contact_groups'
import { MessageLedger } from '#modules/messages/public'
import { ConversationBook } from '#modules/conversations/public'
import { transaction } from '#core/database/transaction'
import { chunksOf } from '#core/database/statement_chunks'
import { MAX_CONTACT_MATCHES, MAX_OPT_OUTS_PER_CALL } from '#modules/contacts/validators/contact_validators'

/** The list's filters (GET /contacts), as an action over everything matching takes them. */
export type ContactListFilters = { blacklisted?: boolean; tag?: string; phone?: string; q?: string }

/** What an action over many contacts names: their ids, or the list's filters. */
export interface ContactSelection {
  contactIds?: string[]
  filter?: ContactListFilters
}

export interface ContactFields {
  phone: string
  firstName?: string | null
  lastName?: string | null
  company?: string | null
  email?: string | null
  notes?: string | null
  tags?: string[]
  fields?: Record<string, string>
  blacklisted?: boolean
}

/**
 * Contacts: one per number. Blacklisting (opting out) a number withdraws what is still waiting
 * for it and not yet taken by a phone (docs/modules.md, A cancel): those messages end `cancelled`
 * with errorCode CONTACT_BLACKLISTED. The messages module withdraws them and the conversations module links the
 * number's conversation to its contact, each writing its own table in the contact's transaction.
 */
@inject()
export class ContactBook {
  constructor(
    private clock: Clock,
    private phoneNumbers: PhoneNumbers,
    private settings: SettingsStore,
    private groups: ContactGroups,
    private ledger: MessageLedger,
    private conversations: ConversationBook,
    private store: ContactStore
  ) {}

  async list(filters: PageRequest & ContactListFilters & { groupId?: number }) {
    return this.store.page({ ...filters, phone: filters.phone ? await this.#normalise(filters.phone) : undefined })
  }

  /** Contacts as the API answers them: with their groups (one statement for the whole page). */
  async resources<T extends { data: Contact[] }>(page: T): Promise<Omit<T, 'data'> & { data: ContactResource[] }>
  async resources(contact: Contact): Promise<ContactResource>
  async resources(value: Contact | { data: Contact[] }): Promise<unknown> {
    const page = 'data' in value && Array.isArray(value.data)
    const contacts = page ? value.data : [value as Contact]
    const groups = await this.groups.groupsOf(contacts.map((contact) => contact.id))
    const shown = contacts.map((contact) => contact.toResource(groups.get(contact.id) ?? []))
    return page ? { ...value, data: shown } : shown[0]
  }

  async find(id: number): Promise<Contact> {
    const contact = await this.store.find(id)
    if (!contact) throw ApiError.notFound('Contact')
    return contact
  }

  async create(fields: ContactFields): Promise<Contact> {
    const phone = await this.#normalise(fields.phone)
    const now = dateTimeOf(this.clock.now())
    let announce = async () => {}
    const created = await transaction(async (trx) => {
      await this.#assertPhoneFree(phone, trx)
      const contact = await this.store.add(trx, {
        phone,
        firstName: fields.firstName ?? null,
        lastName: fields.lastName ?? null,
        company: fields.company ?? null,
        email: fields.email ?? null,
        notes: fields.notes ?? null,
        tags: fields.tags ?? [],
        fields: fields.fields ?? {},
        blacklisted: fields.blacklisted ?? false,
        at: now,
      })
      await this.conversations.linkContacts(trx, [contact])
      if (contact.blacklisted) ({ announce } = await this.#withdrawWaiting([phone], trx))
      return contact
    })
    await announce()
    return created
  }

  async update(id: number, change: Partial<ContactFields>): Promise<Contact> {
    const phone = change.phone === undefined ? undefined : await this.#normalise(change.phone)
    let announce = async () => {}
    const updated = await transaction(async (trx) => {
      const contact = await this.store.findIn(trx, id)
      if (!contact) throw ApiError.notFound('Contact')
      const newPhone = phone !== undefined && phone !== contact.phone
      if (newPhone) {
        await this.#assertPhoneFree(phone, trx)
        await this.conversations.unlinkContact(trx, contact.id)
        await this.conversations.linkContacts(trx, [{ id: contact.id, phone }])
      }
      const { phone: _phone, ...rest } = change
      await this.store.change(trx, contact, { ...(newPhone ? { phone } : {}), ...rest, updatedAt: dateTimeOf(this.clock.now()) })
      if (contact.blacklisted) ({ announce } = await this.#withdrawWaiting([contact.phone], trx))
      return contact
    })
    await announce()
    return updated
  }

  /**
   * The contacts an action over many names, each once: its ids, or the contacts the list's
   * filters match (at most MAX_CONTACT_MATCHES, or nothing is done: the answer must say what was).
   */
  async chosen(selection: ContactSelection): Promise<number[]> {
    if ((selection.contactIds === undefined) === (selection.filter === undefined)) {
      throw new ApiError('VALIDATION_ERROR', 'Give either contactIds or filter', [
        { field: 'contactIds', rule: 'requiredWithout', message: 'Give either contactIds or filter' },
      ])
    }
    if (selection.contactIds) return [...new Set(selection.contactIds.map(Number))]
    const filter = selection.filter!
    const phone = filter.phone ? await this.#normalise(filter.phone) : undefined
    const ids = await this.store.matchingIds({ ...filter, phone }, MAX_CONTACT_MATCHES + 1)
    if (ids.length > MAX_CONTACT_MATCHES) {
      throw new ApiError('TOO_MANY_CONTACTS', `The filter matches more than ${MAX_CONTACT_MATCHES} contacts; narrow the search`, { limit: MAX_CONTACT_MATCHES })
    }
    return ids
  }

  /**
   * Opts out many contacts at once, each as `update` with blacklisted: true does (its waiting
   * messages withdrawn by the same ledger call, given a chunk's numbers at once): a chunk is a few
   * statements, not a few per contact. One already opted out is counted. One transaction per
   * MAX_OPT_OUTS_PER_CALL contacts: the ids of a call are one, as they always were, and a filter's
   * ten thousand leave the one writer to sends and reports between their chunks. A dry run counts
   * and changes nothing.
   */
  async optOut(ids: number[], dryRun = false): Promise<OptOutOutcome> {
    const unique = [...new Set(ids)]
    let found = 0
    let changed = 0
    if (dryRun) {
      const { existing, optedOut } = await this.store.optedOutAmong(unique)
      found = existing
      changed = existing - optedOut
    }
    for (const chunk of dryRun ? [] : chunksOf(unique, MAX_OPT_OUTS_PER_CALL)) {
      const done = await this.#optOutChunk(chunk)
      found += done.found
      changed += done.changed
    }
    const skipped: OptOutOutcome['skipped'] = {}
    if (unique.length > found) skipped.not_found = unique.length - found
    if (found > changed) skipped.already_opted_out = found - changed
    return { matched: unique.length, changed, skipped }
  }

  /** One transaction: the contacts counted, those not opted out yet opted out, what waits for their numbers withdrawn. */
  async #optOutChunk(ids: number[]): Promise<{ found: number; changed: number }> {
    let announce = async () => {}
    const done = await transaction(async (trx) => {
      const { existing } = await this.store.optedOutAmong(ids, trx)
      const optedOut = await this.store.optOut(trx, ids, dateTimeOf(this.clock.now()))
      ;({ announce } = await this.#withdrawWaiting(optedOut.map((contact) => contact.phone), trx))
      return { found: existing, changed: optedOut.length }
    })
    await announce()
    return done
  }

  async delete(id: number): Promise<void> {
    await this.store.remove(await this.find(id))
  }

  #withdrawWaiting(numbers: string[], trx: TransactionClientContract) {
    return this.ledger.cancelWaitingTo(trx, numbers, 'CONTACT_BLACKLISTED', this.clock.now())
  }

  async #assertPhoneFree(phone: string, trx: TransactionClientContract) {
    if (await this.store.phoneTaken(trx, phone)) {
      throw new ApiError('NAME_TAKEN', 'Another contact has this phone number', [
        { field: 'phone', rule: 'unique', message: 'Another contact has this phone number' },
      ])
    }
  }

  async #normalise(phone: string): Promise<string> {
    const { localPrefix } = await this.settings.get('reception')
    return this.phoneNumbers.normalize(phone, localPrefix)
  }
}
