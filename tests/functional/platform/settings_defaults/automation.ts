/** The documented defaults of the automation module's settings fields (docs/automation.md). */
export default {
  reception: {
    optOutKeywordsEnabled: true,
    optOutKeywords: ['STOP', 'STOPALL', 'UNSUBSCRIBE', 'CANCEL', 'END', 'QUIT'],
    optInKeywords: ['START', 'UNSTOP'],
    optOutReply: null,
    optInReply: null,
    helpKeywords: ['HELP'],
    helpReply: null,
    autoReplyLimit: 3,
  },
}
