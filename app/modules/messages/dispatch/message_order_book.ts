import { OrderBook, type InboundReport, type OrderReport } from '#modules/devices/public'
import type { MessageLedger } from '#modules/messages/services/message_ledger'
import type { Dispatcher } from '#modules/messages/dispatch/dispatcher'
import type { OrderReportQueue } from '#modules/messages/dispatch/order_report_queue'

/**
 * What this module does with what the phones report (bound as the devices module's `OrderBook`):
 * reports about orders go through the report queue, received SMS to the ledger, and a phone
 * that comes, goes away or is unpaired has its orders sent again, requeued or failed by the
 * dispatcher, which is then woken (`wakeDispatcher`: the job runner the container holds at that
 * moment, which tests swap). A container singleton.
 */
export class MessageOrderBook extends OrderBook {
  constructor(
    private reports: OrderReportQueue,
    private ledger: MessageLedger,
    private dispatcher: Dispatcher,
    private wakeDispatcher: () => Promise<void>
  ) {
    super()
  }

  async record(report: OrderReport): Promise<void> {
    return this.reports.add(report)
  }

  async storeInbound(sms: InboundReport): Promise<void> {
    await this.ledger.storeInbound(sms)
  }

  async phoneConnected(deviceId: number): Promise<void> {
    await this.dispatcher.resendOrders(deviceId)
    await this.wakeDispatcher()
  }

  async phoneAway(deviceId: number, since: Date): Promise<void> {
    await this.dispatcher.requeueOrdersOf(deviceId, since)
  }

  async phoneUnpaired(deviceId: number): Promise<void> {
    await this.dispatcher.requeueOrdersOf(deviceId)
    await this.dispatcher.failTakenOrdersOf(deviceId)
    // What waited for this phone alone (never ordered: it was disabled, offline or at its
    // quota) fails now, and what it was ordered goes to another phone.
    await this.wakeDispatcher()
  }
}
