/**
 * What the sending module offers other modules (docs/modules.md, module boundaries). Anything
 * not exported here is the module's own business and may change without notice.
 */
/** A send with the rules of POST /messages, queued with others in one transaction (an automatic reply, a backup alert). */
export { SendMessages, type SendRequest } from '#modules/sending/services/send_messages'
/** Many messages queued at once (a campaign's turn), each row recorded by the caller with its message (docs/campaigns.md). */
export { BulkSends, type BulkSend, type BulkSendResult, type BulkBatch } from '#modules/sending/services/bulk_sends'
