import type { PhoneReports } from '#modules/devices/channels/phone_reports'

/**
 * One SMS a phone is ordered to send. The order is stored (the message is `ordered` to this
 * device and SIM) before a channel is given it, with the phone's text options already applied.
 */
export interface PhoneOrder {
  messageId: number
  /** E.164. */
  to: string
  /** The final text. */
  text: string
  simSlot: number
  /**
   * When the gateway handed the message out this time. With `messageId` it names this hand-out:
   * a retry or a move to another phone is a new one. A channel whose phone must never be given
   * the same id twice makes its ids from both, and says it back with its reports.
   */
  orderedAt: Date
}

/**
 * Why the gateway lets go of a device: `unpaired` (its credential no longer works; it must not
 * come back without pairing again), `silent` (nothing heard for 5 minutes; it may come back).
 */
export type LetGoReason = 'unpaired' | 'silent'

/**
 * A kind of phone: how the gateway reaches the devices of one protocol (our WebSocket agent
 * today; docs/phone-channels.md). The dispatcher decides which device and SIM send a message;
 * a channel only carries the orders to the device and brings its reports back through the
 * gateway's one `PhoneReports` inlet, given to it once by `listen`.
 *
 * An order given to a channel is the phone's until it answers (`accepted`, `failed`) or the
 * gateway gives up on the device (see `LetGoReason`); a channel whose phone keeps orders it has
 * not accepted yet may be told when the gateway takes them back (`withdraw`).
 */
export interface PhoneChannel {
  /**
   * A short stable name ('agent'), shown in logs and used to register the channel once; a kind
   * with its own pairing records it on its devices (`devices.kind`).
   */
  readonly kind: string

  /**
   * Whether an order handed to a device and not accepted yet can be taken back safely: the phone
   * starts nothing of it before it accepts it (the SMSGate app accepts by fetching). A message
   * cancelled while it waits (a campaign cancelled, a number opting out) then takes such an
   * order back too, and `withdraw` tells the phone; without it (our agent, which may be sending
   * an order before it says `accepted`) an order handed out goes on.
   */
  readonly takesBackUnaccepted: boolean

  /**
   * Starts taking this kind's devices and their reports. Called once, by `PhoneChannels.register`,
   * before the HTTP server listens.
   */
  listen(reports: PhoneReports): void

  /**
   * Whether the device can be given orders now (connected). A channel says `connected` to the
   * inlet only once this answers true, and `disconnected` once it answers false.
   */
  isConnected(deviceId: number): boolean

  /** The devices that can be given orders now. Read once per dispatch pass: keep it cheap. */
  connectedDevices(): number[]

  /**
   * Hands orders to a connected device, in this order, without waiting for the phone. Answers
   * false (and keeps nothing) when the device is not connected: the orders are stored, so they
   * are handed again when it connects (`connected` sends them again) or, if it stays away for
   * 5 minutes, go back to the queue for another phone.
   */
  sendOrders(deviceId: number, orders: PhoneOrder[]): boolean

  /**
   * Lets go of a device: closes its connection, forgets it. Resolves once it is closed, so that
   * what it said before is handed to the inlet before the gateway moves its orders (`settled`
   * follows). A device this channel does not know is no error: the gateway asks every channel.
   */
  disconnect(deviceId: number, reason: LetGoReason): Promise<void>

  /**
   * Optional. The gateway took these orders back from the device: before it accepted them (it was
   * away 5 minutes: they go to another phone; or their message was cancelled, on a channel that
   * `takesBackUnaccepted`), or their message was deleted. A channel whose phone may still hold
   * them, and can be told to drop them, tells it, now or when it comes back; a report about them
   * changes nothing here. Without it (our agent) the orders are simply forgotten, as before.
   */
  withdraw?(deviceId: number, messageIds: number[]): void

  /** Resolves once every report received so far is handed to the inlet and stored (tests, unpairing, stopping). */
  settled(): Promise<void>

  /** The gateway is stopping: lets go of every device, takes no more, and settles. */
  close(): Promise<void>
}
