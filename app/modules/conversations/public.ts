/**
 * What the conversations module offers other modules (docs/modules.md, module boundaries).
 * Anything not exported here is the module's own business and may change without notice.
 */
/** The upsert every message makes, either way, inside its caller's transaction (the messages module). */
export { recordConversationActivity, type ConversationActivity, type ConversationOfMessage } from '#modules/conversations/services/conversation_activity'
/** One conversation found, assigned, or linked to its number's contact (messages, automation, contacts). */
export { ConversationBook } from '#modules/conversations/services/conversation_book'
/** A message's categories, which a conversation keeps (the messages module answers them as its own). */
export { messageCategories, type MessageCategory } from '#modules/conversations/conversation_values'
/** Who may read conversations: also the access of a conversation's messages (a route of the messages module). */
export { conversationPermissions } from '#modules/conversations/permissions'
/** The rows of the conversations export. */
export { conversationExportColumns, conversationExportRows, type ConversationExportRow } from '#modules/conversations/services/conversation_export_rows'
/** The conversations a search matches by their messages, and the start of their last messages: bound by the messages module. */
export { ConversationTexts } from '#modules/conversations/services/conversation_texts'
