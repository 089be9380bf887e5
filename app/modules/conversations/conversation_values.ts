/**
 * A message's `category` (docs/sending.md, The request): a purpose label only; never changes
 * routing, delay or price. Declared here because a conversation keeps the category of its last
 * message sent and the messages module builds on this one, never the reverse (docs/modules.md);
 * the messages module answers it as its own.
 */
export const messageCategories = ['transactional', 'conversation', 'info', 'campaign'] as const
export type MessageCategory = (typeof messageCategories)[number]

/**
 * `open`: the last word was ours (or nothing came back yet); `awaiting_reply`: the last message
 * came in and nobody answered it.
 */
export const conversationStates = ['open', 'awaiting_reply'] as const
export type ConversationState = (typeof conversationStates)[number]
