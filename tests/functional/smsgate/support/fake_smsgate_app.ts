import { SmsgateApp, type LocalMessage, type StateReport } from '../../../../agent/src/smsgate/smsgate_app.js'

export { gsonJson } from '../../../../agent/src/smsgate/app_protocol.js'
export type { HttpAnswer } from '../../../../agent/src/smsgate/smsgate_app.js'

/** What the fake app does with a message it fetched. */
export type Behaviour = 'deliver' | 'send' | 'process' | 'fail' | 'silence'

/**
 * A fake "SMS Gateway for Android" (SMSGate) app for tests: the app's protocol as the simulated
 * phone speaks it (agent/src/smsgate/smsgate_app.ts, written from docs/smsgate-app-protocol.md),
 * with what a test steers and reads: what it does with each message it fetches (`behaviour`:
 * reports Processed, Sent and Delivered with one `PATCH /message` each, as its state worker
 * does, at once and in order), every event read, keepalive counted and report sent.
 */
export class FakeSmsgateApp extends SmsgateApp {
  behaviour: Behaviour = 'deliver'
  failReason = 'Send result: RESULT_ERROR_NO_SERVICE (Failed because service is currently unavailable)'
  /** Every SSE event read: name and data text; comments counted apart. */
  readonly events: Array<{ event: string; data: string }> = []
  keepalives = 0
  /** Every PATCH /message body sent, in order. */
  readonly reports: unknown[] = []

  protected override async carryOut(message: LocalMessage) {
    if (this.behaviour === 'silence') return
    await this.step(message, 'Processed')
    if (this.behaviour === 'process') return
    if (this.behaviour === 'fail') return this.step(message, 'Failed', this.failReason)
    await this.step(message, 'Sent')
    if (this.behaviour === 'send') return
    await this.step(message, 'Delivered')
  }

  protected override heard(event: string, data: string) {
    this.events.push({ event, data })
  }

  protected override keptAlive() {
    this.keepalives++
  }

  protected override reporting(body: StateReport) {
    this.reports.push(body)
  }
}
