import { messageExportColumns, messageExportRows, type ExportRow as MessageExportRow } from '#modules/messages/public'
import { contactExportColumns, contactExportRows, type ContactExportRow } from '#modules/contacts/public'

/** Every dataset's columns, in order (docs/exports.md, Columns, in this order). */
export const exportColumns = {
  messages: messageExportColumns.messages,
  contacts: contactExportColumns,
  conversations: messageExportColumns.conversations,
} as const

export type ExportDataset = keyof typeof exportColumns
export type ExportRow = MessageExportRow | ContactExportRow

/** A dataset's rows, oldest first, from the module that owns its table. */
export function exportRows(dataset: ExportDataset): AsyncGenerator<ExportRow> {
  return dataset === 'contacts' ? contactExportRows() : messageExportRows(dataset)
}
