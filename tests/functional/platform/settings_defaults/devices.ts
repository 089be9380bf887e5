/** The documented defaults of the devices module's settings fields (docs/sending.md). */
export default {
  general: { stripDiacritics: false, trimWhitespace: false, uppercase: false },
  sending: { routingMode: 'round_robin', priority: [], prefixRules: [], simMinIntervalSeconds: 0, simPerMinuteLimit: null },
}
