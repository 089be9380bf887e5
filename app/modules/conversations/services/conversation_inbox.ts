import { inject } from '@adonisjs/core'
import { ApiError } from '#core/http/api_error'
import type Conversation from '#modules/conversations/models/conversation'
import { ConversationStore, type ConversationFilters } from '#modules/conversations/stores/conversation_store'
import { UserService } from '#modules/auth/public'
import type { PageOf } from '#core/contract/schemas'
import { PREVIEW_LENGTH, type ConversationResource, type conversationListItemSchema } from '#modules/conversations/schemas'
import { ConversationTexts } from '#modules/conversations/services/conversation_texts'
import { firstWords } from '#modules/conversations/services/first_words'

/** Written like a number: its digits are looked for in the conversations' numbers too. */
const LOOKS_LIKE_A_NUMBER = /^[+\d\s().-]*\d[\d\s().-]*$/

export interface ConversationChange {
  pinned?: boolean
  archived?: boolean
  assignedTo?: string | null
  markRead?: true
}

/** Conversations over HTTP: one per number, the latest activity first; one; its changes. */
@inject()
export class ConversationInbox {
  constructor(
    private users: UserService,
    private conversations: ConversationStore,
    private texts: ConversationTexts
  ) {}

  async list(filters: ConversationFilters): Promise<PageOf<typeof conversationListItemSchema>> {
    const matching = filters.q ? { ...(await this.texts.matching(filters.q)), digits: LOOKS_LIKE_A_NUMBER.test(filters.q) ? filters.q.replace(/\D/g, '') : null } : undefined
    const page = await this.conversations.page({ ...filters, matching })
    // One character more than shown tells a cut text from one that ends there.
    const starts = await this.texts.lastMessageStarts(page.data.map((conversation) => conversation.id), PREVIEW_LENGTH + 1)
    return {
      data: page.data.map((conversation) => ({ ...conversation.toResource(), lastMessagePreview: firstWords(starts.get(conversation.id), PREVIEW_LENGTH) })),
      nextCursor: page.nextCursor,
    }
  }

  /** The Conversation resource of one conversation (404 if there is none). */
  async show(id: number): Promise<ConversationResource> {
    return (await this.find(id)).toResource()
  }

  async find(id: number): Promise<Conversation> {
    const conversation = await this.conversations.find(id)
    if (!conversation) throw ApiError.notFound('Conversation')
    return conversation
  }

  async update(id: number, change: ConversationChange): Promise<ConversationResource> {
    const conversation = await this.find(id)
    // Only an existing dashboard account can be assigned (the accounts module says who exists).
    const assignedTo = typeof change.assignedTo === 'string' ? (await this.#account(change.assignedTo)).id : change.assignedTo
    await this.conversations.change(conversation, {
      pinned: change.pinned,
      archived: change.archived,
      unreadCount: change.markRead ? 0 : undefined,
      assignedTo,
    })
    return conversation.toResource()
  }

  async #account(id: string) {
    try {
      return await this.users.find(Number(id))
    } catch {
      throw ApiError.validation('assignedTo', 'exists', 'assignedTo must be the id of a dashboard account')
    }
  }
}
