import { inject } from '@adonisjs/core'
import { ApiError } from '#core/http/api_error'
import type { TemplateRecipient } from '#core/sms/template_text'
import Contact from '#modules/messages/models/contact'
import { ContactBook } from '#modules/messages/services/contact_book'
import { ContactGroups } from '#modules/messages/services/contact_groups'
import { ConversationInbox } from '#modules/messages/services/conversation_inbox'
import { SendMessages } from '#modules/messages/services/send_messages'
import { IdempotentRequests, hashRequest } from '#modules/messages/services/idempotency'

/** What a rule may know about the sender of an SMS: their contact, if any. */
export interface SenderProfile extends TemplateRecipient {
  contactId: number | null
  optedOut: boolean
  tags: string[]
  groupIds: number[]
}

export interface AutomaticReply {
  phone: string
  body: string
  deviceId: string | null
  simSlot: number | null
  /** Unique per reply: the same key twice queues one message (a run resumed after a crash). */
  key: string
  /** The confirmation of an opt-out goes to a number that has just opted out. */
  evenIfOptedOut?: boolean
}

export type ReplyOutcome = { messageId: number } | { refused: string; reason: string }

/** Replies are idempotent under this caller, apart from any API key's own keys. */
const REPLY_CALLER = 'automation'

/**
 * What automation rules do to the sender of an SMS, by number: the messages module's own
 * services do the work (opt-out withdraws waiting messages, sends go through the send queue).
 * A change that needs a contact creates one with the number alone.
 */
@inject()
export class SenderActions {
  constructor(
    private contacts: ContactBook,
    private groups: ContactGroups,
    private inbox: ConversationInbox,
    private sender: SendMessages,
    private idempotency: IdempotentRequests
  ) {}

  async profile(phone: string): Promise<SenderProfile> {
    const contact = await Contact.findBy('phone', phone)
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
    const contact = await Contact.findBy('phone', phone)
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
    const contact = await Contact.findBy('phone', phone)
    if (!contact) return false
    const { removed } = await this.groups.removeMembers(groupId, [contact.id])
    return removed > 0
  }

  /** Adds and removes tags; says whether anything changed. */
  async changeTags(phone: string, add: string[], remove: string[]): Promise<boolean> {
    const contact = add.length ? await Contact.findOrFail(await this.#contactId(phone)) : await Contact.findBy('phone', phone)
    if (!contact) return false
    const tags = [...new Set([...contact.tags.filter((tag) => !remove.includes(tag)), ...add])]
    if (tags.length === contact.tags.length && tags.every((tag) => contact.tags.includes(tag))) return false
    await this.contacts.update(contact.id, { tags })
    return true
  }

  /** Assigns the conversation to a dashboard account, or to nobody with null. */
  async assign(conversationId: number, accountId: string | null): Promise<void> {
    await this.inbox.update(conversationId, { assignedTo: accountId })
  }

  /** Queues an automatic reply (category conversation); a refusal is answered, never thrown. */
  async reply(reply: AutomaticReply): Promise<ReplyOutcome> {
    const request = {
      to: reply.phone,
      body: reply.body,
      category: 'conversation' as const,
      ...(reply.deviceId ? { deviceId: reply.deviceId } : {}),
      ...(reply.simSlot !== null ? { simSlot: reply.simSlot } : {}),
    }
    const claim = { caller: REPLY_CALLER, key: reply.key, requestHash: hashRequest(request) }
    try {
      const answer = await this.idempotency.run(claim, async () => {
        const prepared = await this.sender.prepare(request, claim)
        return this.sender.submit({ ...prepared, evenIfOptedOut: reply.evenIfOptedOut ?? false })
      })
      const accepted = (answer.body as { accepted: Array<{ id: string }> }).accepted
      return { messageId: Number(accepted[0].id) }
    } catch (error) {
      if (error instanceof ApiError) return { refused: error.code, reason: error.message }
      throw error
    }
  }

  async #contactId(phone: string): Promise<number> {
    const contact = await Contact.findBy('phone', phone)
    if (contact) return contact.id
    try {
      return (await this.contacts.create({ phone })).id
    } catch (error) {
      // Created meanwhile by someone else (an import, the API): use theirs.
      const existing = await Contact.findBy('phone', phone)
      if (existing) return existing.id
      throw error
    }
  }
}
