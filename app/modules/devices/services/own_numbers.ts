import { isoOrNull, toIso } from '#core/database/utc_date_time'
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

/**
 * A paired phone's name and dates as a kind of phone shows them to its own software (the SMSGate
 * app's `GET /device`); null when no phone has this id.
 */
export async function phoneSummary(deviceId: number): Promise<{ name: string; createdAt: string; updatedAt: string; lastSeenAt: string | null } | null> {
  const device = await devices.find(deviceId)
  if (!device) return null
  return { name: device.name, createdAt: toIso(device.createdAt), updatedAt: toIso(device.updatedAt), lastSeenAt: isoOrNull(device.lastSeenAt) }
}

/** Whether a paired phone has this id (a rule naming a phone checks it when saved). */
export async function phoneExists(deviceId: number): Promise<boolean> {
  return devices.exists(deviceId)
}
