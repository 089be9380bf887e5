import Device from '#modules/devices/models/device'

/**
 * How many paired phones can send now (enabled and online): what a campaign's estimated end and
 * its review weigh, since nothing leaves while none is.
 */
export async function phonesAvailable(): Promise<number> {
  const [row] = await Device.query().where('enabled', true).where('status', 'online').count('* as phones')
  return Number(row.$extras.phones)
}
