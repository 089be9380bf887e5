/**
 * What the devices module offers other modules (docs/modules.md, module boundaries). Routing,
 * the phones' socket and the dispatcher stay the module's own business.
 */
export { phonesAvailable } from '#modules/devices/services/phones_available'
export { isOwnNumber, phoneExists } from '#modules/devices/services/own_numbers'
