/**
 * When each SIM was last handed an SMS, for the cadence and per-minute limits (a container
 * singleton). In memory: after a restart the limits start afresh, which at worst lets one
 * SIM send a little early once.
 */
export class SimUsage {
  readonly #orders = new Map<string, number[]>()

  record(deviceId: number, slot: number, at: number) {
    const key = `${deviceId}:${slot}`
    const recent = (this.#orders.get(key) ?? []).filter((time) => time > at - 60_000)
    recent.push(at)
    this.#orders.set(key, recent)
  }

  /** Order times of the last minute, oldest first. */
  lastMinute(deviceId: number, slot: number, now: number): number[] {
    return (this.#orders.get(`${deviceId}:${slot}`) ?? []).filter((time) => time > now - 60_000)
  }

  clear() {
    this.#orders.clear()
  }
}

/** The calendar day of `date` in a time zone, as YYYY-MM-DD. */
export function dayIn(timezone: string, date: Date): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: timezone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(date)
}
