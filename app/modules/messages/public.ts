/**
 * What the messages module offers other modules (docs/modules.md, module boundaries). Anything
 * not exported here is the module's own business and may change without notice.
 */
export { SendMessages } from '#modules/messages/services/send_messages'
export { exportColumns, exportRows, type ExportDataset, type ExportRow } from '#modules/messages/services/export_rows'
/** Every change of a message's state and of conversations, whoever decides it. */
export * from '#modules/messages/services/message_ledger'
/** A message's categories and statuses, as the statistics count them. */
export { messageCategories, messageStatuses, type MessageStatus } from '#modules/messages/models/message'
/** Who a campaign or a rule names: contacts of groups and single contacts, with their fields. */
export { ContactAudience, AUDIENCE_PAGE, type AudienceMember, type AudienceSelection } from '#modules/messages/services/contact_audience'
/** Contact groups: membership reads and changes for rules and campaigns. */
export { ContactGroups } from '#modules/messages/services/contact_groups'
/** Campaigns queue many messages at once, each row recorded with its message (docs/campaigns.md). */
export { CampaignSends, type CampaignSend, type CampaignSendResult, type CampaignBatch } from '#modules/messages/services/campaign_sends'
export { type MessageChange } from '#modules/messages/services/message_changes'
/** What automation rules read of inbound SMS (their own cursor) and do to a sender, by number. */
export { InboundMessages, type ReceivedSms } from '#modules/messages/services/inbound_messages'
export { SenderActions, type SenderProfile, type AutomaticReply, type ReplyOutcome } from '#modules/messages/services/sender_actions'
/** Counters behind the statistics endpoints: volume by SIM and campaign, failures, latency, link clicks, opt-outs. */
export { MessageStatistics, LATENCY_BOUNDS_SECONDS, COUNTER_SLOT_SECONDS, type CounterFilters, type VolumeGroupBy, type VolumeGroupKey, type VolumeRow, type FailureRow, type LatencyRow, type LatencyStage, type LinkClickRow, type LinkClickTotal, type OptChangeRow } from '#modules/messages/services/message_statistics'
