import { inject } from '@adonisjs/core'
import { ApiError } from '#core/http/api_error'
import type Conversation from '#modules/conversations/models/conversation'
import { ConversationStore, type ConversationFilters } from '#modules/conversations/stores/conversation_store'
import { UserService } from '#modules/auth/public'
import type { PageOf } from '#core/contract/schemas'
import type { ConversationResource, conversationSchema } from '#modules/conversations/schemas'

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
    private conversations: ConversationStore
  ) {}

  async list(filters: ConversationFilters): Promise<PageOf<typeof conversationSchema>> {
    const page = await this.conversations.page(filters)
    return { data: page.data.map((conversation) => conversation.toResource()), nextCursor: page.nextCursor }
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
