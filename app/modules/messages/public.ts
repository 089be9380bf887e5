/**
 * What the messages module offers other modules (docs/modules.md, module boundaries). Anything
 * not exported here is the module's own business and may change without notice.
 */
export { SendMessages } from '#modules/messages/services/send_messages'
/** The rows of the messages export. */
export { messageExportColumns, messageExportRows, type MessageExportRow } from '#modules/messages/stores/export_rows'
/** Every change of a message's state, whoever decides it. */
export * from '#modules/messages/services/message_ledger'
/** A message's categories and statuses, as the statistics count them. */
export { messageCategories, messageStatuses, type MessageStatus } from '#modules/messages/message_values'
/** Many messages queued at once (a campaign's turn), each row recorded by the caller with its message (docs/campaigns.md). */
export { BulkSends, type BulkSend, type BulkSendResult, type BulkBatch } from '#modules/messages/services/bulk_sends'
export { type MessageChange } from '#modules/messages/services/message_changes'
/** Received SMS in the order they were stored, for a reader with its own cursor (the automation rules). */
export { ReceivedSmsFeed, type ReceivedSms } from '#modules/messages/stores/received_sms_feed'
/** The numbers whose contact's name matches a search: bound by the contacts module (docs/modules.md, Search). */
export { NumbersByName } from '#modules/messages/services/numbers_by_name'
/** Messages chosen by ids or by the list's filters, deleted or retried as one is (the message_bulk module's actions). */
export { ChosenMessages, type ChosenMessage, type MessageListFilters } from '#modules/messages/services/chosen_messages'
/** The list's filters, which a choice by filter takes too. */
export { messageFilterFields } from '#modules/messages/validators/message_validators'
/** Who may delete, and who may retry, one message: the same who may do it to many. */
export { messagePermissions } from '#modules/messages/permissions'
