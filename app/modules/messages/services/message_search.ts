import { inject } from '@adonisjs/core'
import { ConversationTexts } from '#modules/conversations/public'
import { MessageSearchStore, searchExpression, type SearchCondition } from '#modules/messages/stores/message_search'
import { NumbersByName } from '#modules/messages/services/numbers_by_name'

/**
 * A search (`q`) over the messages' text and number (the index of migration 0028) and their
 * contacts' names (`NumbersByName`, bound by the contacts module): a condition for the messages
 * list, and the conversations list's side (bound as the conversations module's `ConversationTexts`).
 */
@inject()
export class MessageSearch extends ConversationTexts {
  constructor(
    private names: NumbersByName,
    private store: MessageSearchStore
  ) {
    super()
  }

  /** A message matches by its text and number, or by its number's contact's name. */
  async listCondition(q: string): Promise<SearchCondition> {
    searchExpression(q)
    return this.store.condition(q, await this.names.phonesMatching(q))
  }

  async matching(q: string): Promise<{ conversationIds: number[]; phones: string[] }> {
    const conversationIds = await this.store.conversationsMatching(q)
    return { conversationIds, phones: await this.names.phonesMatching(q) }
  }

  async lastMessageStarts(conversationIds: number[], length: number): Promise<Map<number, string>> {
    return this.store.lastMessageStarts(conversationIds, length)
  }
}
