/**
 * What the links module offers other modules (docs/modules.md, module boundaries). Anything
 * not exported here is the module's own business and may change without notice.
 */
/**
 * A send's short links: the check that they are possible (before the send is accepted) and the
 * replacement of a text's addresses, inside the send's transaction (docs/sending.md, Short links).
 */
export { shortenLinks, assertShortLinksPossible } from '#modules/links/services/link_shortener'
/** Reads of the click counters: clicks per bucket, the most clicked links (the statistics endpoints). */
export { LinkCounters, CLICK_SLOT_SECONDS, type LinkClickRow, type LinkClickTotal } from '#modules/links/services/link_counters'
