/**
 * What the devices module offers other modules (docs/modules.md, module boundaries). Pairing,
 * the channels and the phones' reports stay the module's own business.
 */
export { phonesAvailable } from '#modules/devices/services/phones_available'
export { isOwnNumber, phoneExists } from '#modules/devices/services/own_numbers'
/** The phones as the messages' owner sees them: SIMs that can take orders, handing orders out. */
export { PhoneFleet, type Carrier, type CarrierOrder } from '#modules/devices/services/phone_fleet'
/** What phones report about messages, handed to whoever binds the order book (the messages module). */
export { OrderBook, OUTCOME_UNKNOWN, type OrderReport, type InboundReport } from '#modules/devices/services/order_book'
