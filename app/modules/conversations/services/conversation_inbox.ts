import { inject } from '@adonisjs/core'
import { ApiError } from '#core/http/api_error'
import { toIso } from '#core/database/utc_date_time'
import { keysetPage, type PageRequest } from '#core/pagination/keyset_page'
import Conversation, { type ConversationState, type MessageCategory } from '#modules/conversations/models/conversation'
import { UserService } from '#modules/auth/public'
import type { PageOf } from '#core/contract/schemas'
import type { ConversationResource, conversationSchema } from '#modules/conversations/schemas'

export interface ConversationFilters extends PageRequest {
  state?: ConversationState
  category?: MessageCategory
  archived?: boolean
  pinned?: boolean
  unread?: boolean
}

export interface ConversationChange {
  pinned?: boolean
  archived?: boolean
  assignedTo?: string | null
  markRead?: true
}

/** Conversations over HTTP: one per number, the latest activity first; one; its changes. */
@inject()
export class ConversationInbox {
  constructor(private users: UserService) {}

  async list(filters: ConversationFilters): Promise<PageOf<typeof conversationSchema>> {
    const query = Conversation.query()
    if (filters.state) query.where('state', filters.state)
    if (filters.category) query.where('category', filters.category)
    if (filters.archived !== undefined) query.where('archived', filters.archived)
    if (filters.pinned !== undefined) query.where('pinned', filters.pinned)
    if (filters.unread !== undefined) query.where('unread_count', filters.unread ? '>' : '=', 0)
    const page = await keysetPage(query, filters, 'last_message_at', (row) => toIso(row.lastMessageAt))
    return { data: page.data.map((conversation) => conversation.toResource()), nextCursor: page.nextCursor }
  }

  /** The Conversation resource of one conversation (404 if there is none). */
  async show(id: number): Promise<ConversationResource> {
    return (await this.find(id)).toResource()
  }

  async find(id: number): Promise<Conversation> {
    const conversation = await Conversation.find(id)
    if (!conversation) throw ApiError.notFound('Conversation')
    return conversation
  }

  async update(id: number, change: ConversationChange): Promise<ConversationResource> {
    const conversation = await this.find(id)
    if (change.pinned !== undefined) conversation.pinned = change.pinned
    if (change.archived !== undefined) conversation.archived = change.archived
    if (change.markRead) conversation.unreadCount = 0
    if (change.assignedTo !== undefined) {
      // Only an existing dashboard account can be assigned (the accounts module says who exists).
      conversation.assignedTo = change.assignedTo === null ? null : (await this.#account(change.assignedTo)).id
    }
    await conversation.save()
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
