import { inject } from '@adonisjs/core'
import { MessageQueries } from '#modules/messages/services/message_queries'
import { MessageStore, type ChosenMessage, type MessageFilters } from '#modules/messages/stores/message_store'

export type { ChosenMessage }

/** The filters of GET /messages (q included), without its page. */
export type MessageListFilters = Omit<MessageFilters, 'limit' | 'cursor' | 'matching'>

/**
 * Messages chosen by ids or by the list's filters, and deleted or retried by the single
 * operations' own code (MessageQueries.deleteMessages, .retryMessages): a message deleted among
 * many is withdrawn from its phone and announced exactly as one deleted alone, whoever chose it.
 */
@inject()
export class ChosenMessages {
  constructor(
    private queries: MessageQueries,
    private messages: MessageStore
  ) {}

  /** The messages among these ids, oldest first; an id of no message is absent. */
  named(ids: number[]): Promise<ChosenMessage[]> {
    return this.messages.selected(ids)
  }

  /** The messages the list's filters match (the number and q taken as the list takes them), up to `limit`, oldest first. */
  async matching(filters: MessageListFilters, limit: number): Promise<ChosenMessage[]> {
    return this.messages.selection(await this.queries.resolved(filters), limit)
  }

  /** Deletes them as DELETE /messages/{id} deletes one; answers the ids deleted. */
  delete(messages: ChosenMessage[]): Promise<Set<number>> {
    return this.queries.deleteMessages(messages)
  }

  /** The failed outgoing ones go back to the queue as POST /messages/{id}/retry puts one back; answers the ids retried. */
  retry(messages: ChosenMessage[]): Promise<number[]> {
    return this.queries.retryMessages(messages)
  }
}
