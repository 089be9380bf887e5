import { inject } from '@adonisjs/core'
import type { TransactionClientContract } from '@adonisjs/lucid/types/database'
import { Clock } from '#core/time/clock'
import { ApiError } from '#core/http/api_error'
import { PhoneNumbers } from '#core/phone_numbers/phone_numbers'
import { SettingsStore } from '#core/settings/settings_store'
import { dateTimeOf, toIso } from '#core/database/utc_date_time'
import { keysetPage, type PageRequest } from '#core/pagination/keyset_page'
import Contact, { contactResource } from '#modules/contacts/models/contact'
import type { ContactResource } from '#modules/contacts/schemas'
import { ContactGroups } from '#modules/contacts/services/contact_groups'
import { MessageLedger } from '#modules/messages/public'
import { ConversationBook } from '#modules/conversations/public'
import { likeContaining } from '#core/database/like_pattern'
import { transaction } from '#core/database/transaction'

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

/** A search text written like a phone number: its digits are looked for in the numbers. */
const LOOKS_LIKE_A_NUMBER = /^[+\d\s().-]*\d[\d\s().-]*$/

/** Contacts a person finds by typing part of a name, company, e-mail or number. */
function matchSearch(query: ReturnType<typeof Contact.query>, search: string) {
  const pattern = likeContaining(search)
  query.where((match) => {
    for (const column of ['first_name', 'last_name', 'company', 'email']) match.orWhereRaw(`${column} LIKE ? ESCAPE '\\'`, [pattern])
    match.orWhereRaw(`(COALESCE(first_name, '') || ' ' || COALESCE(last_name, '')) LIKE ? ESCAPE '\\'`, [pattern])
    if (LOOKS_LIKE_A_NUMBER.test(search)) match.orWhere('phone', 'like', likeContaining(search.replace(/\D/g, '')))
  })
}

/**
 * Contacts: one per number. Blacklisting (opting out) a number withdraws what is still waiting
 * for it and not yet with a phone: those messages end `cancelled` with errorCode
 * CONTACT_BLACKLISTED. The messages module withdraws them and the conversations module links the
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
    private conversations: ConversationBook
  ) {}

  async list(filters: PageRequest & { blacklisted?: boolean; tag?: string; phone?: string; q?: string; groupId?: number }) {
    const query = Contact.query()
    if (filters.groupId !== undefined) {
      query.whereExists((member) =>
        member.from('contact_group_members').whereColumn('contact_group_members.contact_id', 'contacts.id').where('contact_group_members.group_id', filters.groupId!)
      )
    }
    if (filters.q) matchSearch(query, filters.q)
    if (filters.blacklisted !== undefined) query.where('blacklisted', filters.blacklisted)
    if (filters.tag) query.whereRaw('EXISTS (SELECT 1 FROM json_each(contacts.tags) WHERE json_each.value = ?)', [filters.tag])
    if (filters.phone) query.where('phone', await this.#normalise(filters.phone))
    return keysetPage(query, filters, 'created_at', (row) => toIso(row.createdAt))
  }

  /** Contacts as the API answers them: with their groups (one statement for the whole page). */
  async resources<T extends { data: Contact[] }>(page: T): Promise<Omit<T, 'data'> & { data: ContactResource[] }>
  async resources(contact: Contact): Promise<ContactResource>
  async resources(value: Contact | { data: Contact[] }): Promise<unknown> {
    const contacts = value instanceof Contact ? [value] : value.data
    const groups = await this.groups.groupsOf(contacts.map((contact) => contact.id))
    const shown = contacts.map((contact) => contactResource(contact, groups.get(contact.id) ?? []))
    return value instanceof Contact ? shown[0] : { ...value, data: shown }
  }

  async find(id: number): Promise<Contact> {
    const contact = await Contact.find(id)
    if (!contact) throw ApiError.notFound('Contact')
    return contact
  }

  async create(fields: ContactFields): Promise<Contact> {
    const phone = await this.#normalise(fields.phone)
    const now = dateTimeOf(this.clock.now())
    let announce = async () => {}
    const created = await transaction(async (trx) => {
      await this.#assertPhoneFree(phone, trx)
      const contact = await Contact.create(
        {
          phone,
          firstName: fields.firstName ?? null,
          lastName: fields.lastName ?? null,
          company: fields.company ?? null,
          email: fields.email ?? null,
          notes: fields.notes ?? null,
          tags: fields.tags ?? [],
          fields: fields.fields ?? {},
          blacklisted: fields.blacklisted ?? false,
          createdAt: now,
          updatedAt: now,
        },
        { client: trx }
      )
      await this.conversations.linkContacts(trx, [contact])
      if (contact.blacklisted) ({ announce } = await this.#withdrawWaiting(phone, trx))
      return contact
    })
    await announce()
    return created
  }

  async update(id: number, change: Partial<ContactFields>): Promise<Contact> {
    const phone = change.phone === undefined ? undefined : await this.#normalise(change.phone)
    let announce = async () => {}
    const updated = await transaction(async (trx) => {
      const contact = await Contact.query({ client: trx }).where('id', id).first()
      if (!contact) throw ApiError.notFound('Contact')
      if (phone !== undefined && phone !== contact.phone) {
        await this.#assertPhoneFree(phone, trx)
        await this.conversations.unlinkContact(trx, contact.id)
        await this.conversations.linkContacts(trx, [{ id: contact.id, phone }])
        contact.phone = phone
      }
      const { phone: _phone, ...rest } = change
      contact.merge({ ...rest, updatedAt: dateTimeOf(this.clock.now()) })
      await contact.useTransaction(trx).save()
      if (contact.blacklisted) ({ announce } = await this.#withdrawWaiting(contact.phone, trx))
      return contact
    })
    await announce()
    return updated
  }

  async delete(id: number): Promise<void> {
    const contact = await this.find(id)
    await contact.delete()
  }

  #withdrawWaiting(phone: string, trx: TransactionClientContract) {
    return this.ledger.cancelWaitingTo(trx, phone, 'CONTACT_BLACKLISTED', this.clock.now())
  }

  async #assertPhoneFree(phone: string, trx: TransactionClientContract) {
    if (await trx.from('contacts').where('phone', phone).first()) {
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
