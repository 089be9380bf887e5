/**
 * What the conversations list needs from the messages' text, which this module never reads: the
 * conversations a search (`q`) matches and the start of each one's last message. The messages
 * module builds on this one and binds it in its provider.
 */
export abstract class ConversationTexts {
  /** The conversations holding a message whose text or number matches `q`, and the numbers of the contacts named by it. */
  abstract matching(q: string): Promise<{ conversationIds: number[]; phones: string[] }>
  /** The first `length` characters of each conversation's last message; absent when it has none. */
  abstract lastMessageStarts(conversationIds: number[], length: number): Promise<Map<number, string>>
}
