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
  /** Called with every SMS that arrives. */
  onInbound(listener: (sms: InboundSms) => void): void
  /** Called when a carrier delivery receipt arrives for a message sent earlier. */
  onDelivered(listener: (messageId: string) => void): void
}
