import { defineErrorKinds, type KindsOf } from '#core/http/api_error'

/** Refusals of delivery replays (docs/webhooks.md, The delivery log). */
export const webhookErrors = defineErrorKinds({
  WEBHOOK_INACTIVE: { status: 409, code: 'WEBHOOK_INACTIVE', description: 'Replay refused: the webhook is paused or switched off' },
  NOT_REPLAYABLE: { status: 409, code: 'NOT_REPLAYABLE', description: "Replay refused: a rule's call cannot be replayed" },
})

declare module '#core/http/api_error' {
  interface ApiErrorKinds extends KindsOf<typeof webhookErrors> {}
}
