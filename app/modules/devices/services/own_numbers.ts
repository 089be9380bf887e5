import db from '@adonisjs/lucid/services/db'

/**
 * Whether a number is one of the paired phones' own SIM numbers: automatic replies never go
 * there (two gateways, or a phone texting itself, would answer each other forever).
 */
export async function isOwnNumber(phone: string): Promise<boolean> {
  return Boolean(await db.from('device_sims').where('number', phone).first())
}

/** Whether a paired phone has this id (a rule naming a phone checks it when saved). */
export async function phoneExists(deviceId: number): Promise<boolean> {
  return Boolean(await db.from('devices').where('id', deviceId).first())
}
