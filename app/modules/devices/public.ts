/**
 * What the devices module offers other modules (docs/modules.md, module boundaries). Pairing,
 * the channels and the phones' reports stay the module's own business.
 */
export { phonesAvailable } from '#modules/devices/services/phones_available'
export { isOwnNumber, phoneExists, phoneSummary } from '#modules/devices/services/own_numbers'
/** The phones as the messages' owner sees them: SIMs that can take orders, handing orders out. */
export { PhoneFleet, type Carrier, type CarrierOrder } from '#modules/devices/services/phone_fleet'
/** What phones report about messages, handed to whoever binds the order book (the messages module). */
export { OrderBook, OUTCOME_UNKNOWN, type OrderReport, type InboundReport } from '#modules/devices/services/order_book'
/**
 * What a kind of phone plugs in with from a module of its own (docs/phone-channels.md, Adding a
 * channel): the channel contract and the inlet of reports, the registry it registers in, the
 * kinds a pairing code is made for, pairing with such a code, and the SIMs it reports.
 */
export { PhoneChannels } from '#modules/devices/channels/phone_channels'
export type { PhoneChannel, PhoneOrder, LetGoReason } from '#modules/devices/channels/phone_channel'
export { AgentCredentials } from '#modules/devices/services/agent_credentials'
export type { PhoneReports, Taken, PhoneStatus, InboundSms } from '#modules/devices/channels/phone_reports'
export { pairingApps, type PairingApp } from '#modules/devices/services/pairing_apps'
export { PhonePairing, replaceSims, type ReportedSim } from '#modules/devices/services/phone_pairing'
