import { inject } from '@adonisjs/core'
import type { TemplateRecipient } from '#core/sms/template_text'
import { ContactStore } from '#modules/contacts/stores/contact_store'
import { ContactBook } from '#modules/contacts/services/contact_book'
import { ContactGroups } from '#modules/contacts/services/contact_groups'

/** What is known of a number: its contact, if any (what a rule may know about the sender of an SMS). */
export interface ContactProfile extends TemplateRecipient {
  contactId: number | null
  optedOut: boolean
  tags: string[]
  groupIds: number[]
}

/**
 * A contact read and changed by its number (what an automation rule does to the sender of an
 * SMS): the contact book and groups do the work (an opt-out withdraws waiting messages). A
 * change that needs a contact creates one with the number alone.
 */
@inject()
export class ContactsByPhone {
  constructor(
    private contacts: ContactBook,
    private groups: ContactGroups,
    private store: ContactStore
  ) {}

  async profile(phone: string): Promise<ContactProfile> {
    const contact = await this.store.findByPhone(phone)
    if (!contact) return { phone, contactId: null, optedOut: false, tags: [], groupIds: [] }
    const groups = (await this.groups.groupsOf([contact.id])).get(contact.id) ?? []
    return {
      phone,
      contactId: contact.id,
      optedOut: contact.blacklisted,
      tags: contact.tags,
      groupIds: groups.map((group) => Number(group.id)),
      firstName: contact.firstName,
      lastName: contact.lastName,
      company: contact.company,
      email: contact.email,
      fields: contact.fields ?? {},
    }
  }

  /** Opts the number out (withdrawing its waiting messages) or back in; says whether it changed. */
  async setOptedOut(phone: string, optedOut: boolean): Promise<boolean> {
    const contact = await this.store.findByPhone(phone)
    if (!contact) {
      if (!optedOut) return false
      await this.contacts.create({ phone, blacklisted: true })
      return true
    }
    if (contact.blacklisted === optedOut) return false
    await this.contacts.update(contact.id, { blacklisted: optedOut })
    return true
  }

  /** Says whether the number joined the group (false: it was already in). */
  async addToGroup(phone: string, groupId: number): Promise<boolean> {
    const { added } = await this.groups.addMembers(groupId, [await this.#contactId(phone)])
    return added > 0
  }

  async removeFromGroup(phone: string, groupId: number): Promise<boolean> {
    const contact = await this.store.findByPhone(phone)
    if (!contact) return false
    const { removed } = await this.groups.removeMembers(groupId, [contact.id])
    return removed > 0
  }

  /** Adds and removes tags; says whether anything changed. */
  async changeTags(phone: string, add: string[], remove: string[]): Promise<boolean> {
    const contact = add.length ? await this.store.findOrFail(await this.#contactId(phone)) : await this.store.findByPhone(phone)
    if (!contact) return false
    const tags = [...new Set([...contact.tags.filter((tag) => !remove.includes(tag)), ...add])]
    if (tags.length === contact.tags.length && tags.every((tag) => contact.tags.includes(tag))) return false
    await this.contacts.update(contact.id, { tags })
    return true
  }

  async #contactId(phone: string): Promise<number> {
    const contact = await this.store.findByPhone(phone)
    if (contact) return contact.id
    try {
      return (await this.contacts.create({ phone })).id
    } catch (error) {
      // Created meanwhile by someone else (an import, the API): use theirs.
      const existing = await this.store.findByPhone(phone)
      if (existing) return existing.id
      throw error
    }
  }
}
