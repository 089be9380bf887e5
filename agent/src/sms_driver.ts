/**
 * What a phone agent needs from the thing that really sends SMS: a simulator, an Android phone
 * under Termux, or a serial GSM modem.
 */
export interface SendOrder {
  messageId: string
  to: string
  text: string
  simSlot: number
}

export type SendOutcome = { ok: true } | { ok: false; reason: string }

export interface InboundSms {
  /** The driver's own, stable id for this SMS: a repeated report must carry the same. */
  ref: string
  from: string
  body: string
  receivedAt: string
  simSlot: number
}

export interface DeviceStatus {
  battery?: { level: number; charging: boolean }
  signal?: number
}

export interface SmsDriver {
  sims(): Array<{ slot: number; label?: string; operator?: string; number?: string }>
  send(order: SendOrder): Promise<SendOutcome>
  status(): Promise<DeviceStatus>
  /**
   * Called with every SMS that arrives. A listener may answer a promise that resolves once the
   * SMS is safe (the agent's: the gateway acknowledged it); a driver that can keep the SMS
   * until then (a modem's SIM store) deletes it only after every listener's promise resolved.
   */
  onInbound(listener: (sms: InboundSms) => unknown): void
  /** Called when a carrier delivery receipt arrives for a message sent earlier. */
  onDelivered(listener: (messageId: string) => void): void
  /**
   * Called when a carrier report says a message sent earlier will never be delivered (reason:
   * a short code such as `REJECTED_BY_RECIPIENT`). Drivers without such reports omit it.
   */
  onDeliveryFailed?(listener: (messageId: string, reason: string) => void): void
  /**
   * Called when the driver stops being able to send (false: a modem unplugged or being reset)
   * and when it can again (true). The agent is offline at the gateway meanwhile, so no order
   * is given to a phone that would only fail it. Drivers that are always ready omit it.
   */
  onReadiness?(listener: (ready: boolean) => void): void
}
