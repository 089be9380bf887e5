import type { PhoneReports, InboundSms, PhoneStatus } from '#modules/devices/channels/phone_reports'
import type { PhoneReportStore } from '#modules/devices/services/phone_report_store'

/**
 * The one `PhoneReports` every channel is given (docs/phone-channels.md). Each report goes to a
 * `PhoneReportStore` resolved at that moment (it reads the container's clock, which tests swap);
 * a device that connects is then announced to the order book (`onConnected`), which sends it
 * again the orders it never accepted.
 */
export class ReportInlet implements PhoneReports {
  constructor(
    private store: () => Promise<PhoneReportStore>,
    private onConnected: (deviceId: number) => Promise<void>
  ) {}

  async connected(deviceId: number) {
    await (await this.store()).connected(deviceId)
    await this.onConnected(deviceId)
  }

  async disconnected(deviceId: number) {
    await (await this.store()).disconnected(deviceId)
  }

  async heartbeat(deviceId: number) {
    return (await this.store()).heartbeat(deviceId)
  }

  async appVersion(deviceId: number, version: string) {
    return (await this.store()).appVersion(deviceId, version)
  }

  async status(deviceId: number, status: PhoneStatus) {
    return (await this.store()).status(deviceId, status)
  }

  async accepted(deviceId: number, messageId: number, orderedAt?: Date) {
    return (await this.store()).order('accepted', deviceId, messageId, orderedAt)
  }

  async sent(deviceId: number, messageId: number, orderedAt?: Date) {
    return (await this.store()).order('sent', deviceId, messageId, orderedAt)
  }

  async delivered(deviceId: number, messageId: number, orderedAt?: Date) {
    return (await this.store()).order('delivered', deviceId, messageId, orderedAt)
  }

  async failed(deviceId: number, messageId: number, errorCode: string, orderedAt?: Date) {
    return (await this.store()).failed(deviceId, messageId, errorCode, orderedAt)
  }

  async inbound(deviceId: number, sms: InboundSms) {
    return (await this.store()).inbound(deviceId, sms)
  }
}
