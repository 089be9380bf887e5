import { DeviceStore } from '#modules/devices/stores/device_store'

/** A store holds no state: a plain function makes its own (docs/modules.md, Data access). */
const devices = new DeviceStore()

/**
 * Whether a number is one of the paired phones' own SIM numbers: automatic replies never go
 * there (two gateways, or a phone texting itself, would answer each other forever).
 */
export async function isOwnNumber(phone: string): Promise<boolean> {
  return devices.isSimNumber(phone)
}

/** Whether a paired phone has this id (a rule naming a phone checks it when saved). */
export async function phoneExists(deviceId: number): Promise<boolean> {
  return devices.exists(deviceId)
}
