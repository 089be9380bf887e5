/** The documented defaults of the campaigns module's settings fields (docs/campaigns.md, the send window and night pause). */
export default {
  sending: {
    campaignWindowEnabled: false,
    campaignWindowDays: [1, 2, 3, 4, 5, 6, 7],
    campaignWindowStart: '09:00',
    campaignWindowEnd: '20:00',
    nightPauseEnabled: true,
    nightPauseStart: '21:00',
    nightPauseEnd: '08:00',
  },
}
