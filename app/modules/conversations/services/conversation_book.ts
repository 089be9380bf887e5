import { inject } from '@adonisjs/core'
import type { QueryClientContract } from '@adonisjs/lucid/types/database'
import { ConversationInbox } from '#modules/conversations/services/conversation_inbox'
import { ConversationStore } from '#modules/conversations/stores/conversation_store'

/**
 * What other modules do to conversations: find one (the messages module lists its messages),
 * assign it (an automation rule), and link a number's conversation to its contact (the contacts
 * module, in the contact's own transaction).
 */
@inject()
export class ConversationBook {
  constructor(
    private inbox: ConversationInbox,
    private conversations: ConversationStore
  ) {}

  /** The conversation's id; NOT_FOUND (404) when there is none. */
  async find(id: number): Promise<{ id: number }> {
    const conversation = await this.inbox.find(id)
    return { id: conversation.id }
  }

  /** Assigns the conversation to a dashboard account, or to nobody with null. */
  async assign(conversationId: number, accountId: string | null): Promise<void> {
    await this.inbox.update(conversationId, { assignedTo: accountId })
  }

  /**
   * The conversations of these numbers that have no contact take the number's contact (a
   * contact created, imported or given a new number), on the caller's client: one statement.
   */
  async linkContacts(client: QueryClientContract, contacts: Array<{ id: number; phone: string }>): Promise<void> {
    if (!contacts.length) return
    await this.conversations.linkContacts(client, contacts)
  }

  /** The contact's conversations are left without it (its number changed), on the caller's client. */
  async unlinkContact(client: QueryClientContract, contactId: number): Promise<void> {
    await this.conversations.unlinkContact(client, contactId)
  }
}
