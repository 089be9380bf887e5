/**
 * A latency quantile as the gateway answers it: the histogram bucket `[from, to)` in seconds that
 * holds it (`to: null`: a day or more). In plain words: "under 1 s", "1–2 s", "1.5–2 min",
 * "a day or more".
 */
export interface LatencyRange {
  from: number
  to: number | null
}

function amount(value: number, unit: number): string {
  const scaled = value / unit
  return Number.isInteger(scaled) ? String(scaled) : scaled.toFixed(1).replace(/\.0$/, '')
}

export function latencyWords(range: LatencyRange | null | undefined): string {
  if (!range) return '—'
  const { from, to } = range
  const [unit, suffix]: [number, string] = (to ?? from) <= 60 ? [1, 's'] : (to ?? from) <= 3600 ? [60, 'min'] : [3600, 'h']
  if (to === null) return from >= 86_400 ? 'a day or more' : `${amount(from, unit)} ${suffix} or more`
  if (from === 0) return `under ${amount(to, unit)} ${suffix}`
  return `${amount(from, unit)}–${amount(to, unit)} ${suffix}`
}
