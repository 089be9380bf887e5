import { messageExportColumns, type MessageExportRow } from '#modules/messages/public'
import { contactExportColumns, contactExportRows, type ContactExportRow } from '#modules/contacts/public'
import { conversationExportColumns, conversationExportRows, type ConversationExportRow } from '#modules/conversations/public'

/** Every dataset's columns, in order (docs/exports.md, Columns, in this order). */
export const exportColumns = {
  messages: messageExportColumns,
  contacts: contactExportColumns,
  conversations: conversationExportColumns,
} as const

export type ExportDataset = keyof typeof exportColumns
export type ExportRow = MessageExportRow | ContactExportRow | ConversationExportRow

/** A whole dataset's rows, oldest first, from the module that owns its table (the messages': MessageExports, filtered or not). */
export function exportRows(dataset: Exclude<ExportDataset, 'messages'>): AsyncGenerator<ExportRow> {
  return dataset === 'contacts' ? contactExportRows() : conversationExportRows()
}
