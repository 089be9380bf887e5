/**
 * What the messages module offers other modules (docs/modules.md, module boundaries). Anything
 * not exported here is the module's own business and may change without notice.
 */
/** The rows of the messages export: every message, or those the list's filters or a selection's ids match. */
export { messageExportColumns, type MessageExportRow } from '#modules/messages/stores/export_rows'
export { MessageExports, type MessageExportFilters } from '#modules/messages/services/message_exports'
export { messageExportFilterFields, MAX_EXPORT_IDS } from '#modules/messages/validators/message_validators'
/** Every change of a message's state, whoever decides it. */
export * from '#modules/messages/services/message_ledger'
/** A message's categories and statuses, as the statistics count them. */
export { messageCategories, messageStatuses, type MessageCategory, type MessageStatus } from '#modules/messages/message_values'
/**
 * Queued messages inserted with their numbers' conversations on the caller's transaction (the
 * only insert of outbound messages), and their announcement once it has committed
 * (`messages:queued`, which wakes the dispatcher).
 */
export { queueMessages, type OutboundSend, type OptedOutRule, type QueuedOutcome } from '#modules/messages/services/queued_messages'
export { announceQueued, type MessageChange } from '#modules/messages/services/message_changes'
/** The Message resource: its schema as published, a row just written as answered, a send's answer around it. */
export { messageSchemas, messageResource, acceptedSchema, type AcceptedMessages, type MessageRow } from '#modules/messages/schemas'
/** Who may read, send (and retry) and delete messages, one or many. */
export { messagePermissions } from '#modules/messages/permissions'
/** The messages a campaign queued: their statuses, those waiting, its backlog (docs/campaigns.md). */
export { MessageBacklog } from '#modules/messages/stores/message_backlog'
/** Received SMS in the order they were stored, for a reader with its own cursor (the automation rules). */
export { ReceivedSmsFeed, type ReceivedSms } from '#modules/messages/stores/received_sms_feed'
/** The numbers whose contact's name matches a search: bound by the contacts module (docs/modules.md, Search). */
export { NumbersByName } from '#modules/messages/services/numbers_by_name'
/** Messages chosen by ids or by the list's filters, deleted or retried as one is (the message_bulk module's actions). */
export { ChosenMessages, type ChosenMessage, type MessageListFilters } from '#modules/messages/services/chosen_messages'
/** The list's filters, which a choice by filter takes too. */
export { messageFilterFields } from '#modules/messages/validators/message_validators'
