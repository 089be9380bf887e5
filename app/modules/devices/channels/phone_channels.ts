import type { LetGoReason, PhoneChannel, PhoneOrder } from '#modules/devices/channels/phone_channel'
import type { PhoneReports } from '#modules/devices/channels/phone_reports'

/**
 * Every kind of phone the gateway talks to (a container singleton): the dispatcher, the jobs and
 * the provider reach devices only through it, never through one channel's own code.
 *
 * A device belongs to the channel it is connected through: orders only ever go to a connected
 * device, and only that channel can reach it. So the registry asks the channels (each keeps its
 * own connections) rather than keeping a map of its own or a column on `devices` that could
 * disagree with them; a device nobody has connected is reached by no channel, and letting go
 * of one asks every channel (an unpaired device's row is already gone).
 */
export class PhoneChannels {
  readonly #channels: PhoneChannel[] = []

  constructor(private reports: PhoneReports) {}

  /** Adds a kind of phone: it starts taking its devices, reporting through the gateway's inlet. */
  register(channel: PhoneChannel): void {
    if (this.#channels.some((known) => known.kind === channel.kind)) throw new Error(`Two phone channels named ${channel.kind}`)
    this.#channels.push(channel)
    channel.listen(this.reports)
  }

  /**
   * Removes a kind of phone: it lets go of its devices first (their orders wait, or go to another
   * phone after 5 minutes, as for any phone that went away). Tests plug a channel in and out.
   */
  async unregister(kind: string): Promise<void> {
    const channel = this.#channels.find((known) => known.kind === kind)
    if (!channel) return
    await channel.close()
    this.#channels.splice(this.#channels.indexOf(channel), 1)
  }

  /** The registered channels, in registration order. */
  all(): readonly PhoneChannel[] {
    return this.#channels
  }

  /** The channel the device is connected through now; null when it is not connected. */
  channelOf(deviceId: number): PhoneChannel | null {
    return this.#channels.find((channel) => channel.isConnected(deviceId)) ?? null
  }

  isConnected(deviceId: number): boolean {
    return this.channelOf(deviceId) !== null
  }

  /** The devices that can be given orders now, whatever their kind. */
  connectedDevices(): number[] {
    if (this.#channels.length === 1) return this.#channels[0].connectedDevices()
    return this.#channels.flatMap((channel) => channel.connectedDevices())
  }

  /** Hands orders to the device through its channel; false when it is not connected (the orders wait). */
  sendOrders(deviceId: number, orders: PhoneOrder[]): boolean {
    return this.channelOf(deviceId)?.sendOrders(deviceId, orders) ?? false
  }

  /** The kinds of phone that can take back an order their device has not accepted yet. */
  kindsTakingBackUnaccepted(): string[] {
    return this.#channels.filter((channel) => channel.takesBackUnaccepted).map((channel) => channel.kind)
  }

  /**
   * Orders taken back from a device: told to every channel that can tell its phone (the device
   * may be away, so none may have it connected now).
   */
  withdraw(deviceId: number, messageIds: number[]): void {
    if (!messageIds.length) return
    for (const channel of this.#channels) channel.withdraw?.(deviceId, messageIds)
  }

  /** Lets go of a device on every channel that knows it; resolves once it is closed. */
  async disconnect(deviceId: number, reason: LetGoReason): Promise<void> {
    await Promise.all(this.#channels.map((channel) => channel.disconnect(deviceId, reason)))
  }

  /** Resolves once every report any channel received so far is stored. */
  async settled(): Promise<void> {
    await Promise.all(this.#channels.map((channel) => channel.settled()))
  }

  /** The gateway is stopping: every channel lets go of its devices and settles. */
  async close(): Promise<void> {
    await Promise.all(this.#channels.map((channel) => channel.close()))
  }
}
