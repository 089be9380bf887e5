import { DeviceStore } from '#modules/devices/stores/device_store'

/** A store holds no state: a plain function makes its own (docs/modules.md, Data access). */
const devices = new DeviceStore()

/**
 * How many paired phones can send now (enabled and online): what a campaign's estimated end and
 * its review weigh, since nothing leaves while none is.
 */
export async function phonesAvailable(): Promise<number> {
  return devices.countAvailable()
}
