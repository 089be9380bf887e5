import type { MessageStore } from '#modules/messages/stores/message_store'

/**
 * Messages queued in batches under one `campaignId`, as their sender follows them: their
 * statuses, those waiting that pause, resume and cancel act on (`MessageLedger`), the backlog.
 * Named for what it reads, not for its caller (the campaigns module).
 */
export class MessageBacklog {
  constructor(private messages: MessageStore) {}

  /** The current status of each of these messages (a campaign reconciling its recipients); a deleted one is absent. */
  statusesOf(messageIds: number[]) {
    return this.messages.statusesOf(messageIds)
  }

  /**
   * A campaign's messages not handed to a phone yet, and those it paused: what pause, resume and
   * cancel act on; `handedOut` adds its queued ones already handed to a phone, of which a cancel
   * takes back those the phone has not accepted where its kind can (`MessageLedger.cancel`).
   */
  waitingOf(campaignId: number, statuses: Array<'queued' | 'pending_quota_exceeded' | 'paused'>, options: { handedOut?: boolean } = {}) {
    return this.messages.waitingOf(campaignId, statuses, options)
  }

  /** Messages of the campaign still to be sent (queued or waiting for a quota): the backlog the throttle bounds. */
  backlogOf(campaignId: number) {
    return this.messages.backlogOf(campaignId)
  }
}
