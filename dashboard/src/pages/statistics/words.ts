import type { BreakdownGroup } from './use_statistics'

/** A rate of 0..1 (4 decimals) as "97.6%"; null: nothing to rate. */
export function percent(rate: number | null | undefined): string {
  if (rate === null || rate === undefined) return '—'
  const value = Math.round(rate * 1000) / 10
  return `${value}%`
}

/** The rate as a number of the chart's axis (0–100, one decimal), null kept. */
export function percentValue(rate: number | null): number | null {
  return rate === null ? null : Math.round(rate * 1000) / 10
}

/** Every outgoing message of a group, whatever its status. */
export function outgoingOf(group: BreakdownGroup): number {
  return Object.values(group.totals.out).reduce((sum, count) => sum + count, 0)
}

/** "3 messages", "1 message". */
export function count(value: number, one: string, many = `${one}s`): string {
  return `${value} ${value === 1 ? one : many}`
}
